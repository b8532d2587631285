/**
 * Dependencies point down (issue 23, point 2): no import cycle anywhere in src/, and nothing outside
 * src/http/ imports the HTTP edge (domain errors live in src/errors.ts and are mapped there).
 * Run by `npm test` (`depcruise src`).
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'An import cycle: two modules that cannot be understood, tested or loaded one without the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-upward-import-into-http',
      severity: 'error',
      comment: 'Only the HTTP edge (and the app and server that assemble it) may import src/http/: the domain knows nothing of HTTP.',
      from: { path: '^src/', pathNot: '^src/(http/|app\\.ts$|server\\.ts$|cli/)' },
      to: { path: '^src/http/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
