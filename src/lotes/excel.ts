/**
 * ExcelJS, loaded with the first XLSX file a process reads or writes: loading it takes one to two
 * seconds on this machine, which a process that never meets an XLSX file (a server without batches
 * in XLSX, a command, a test) does not pay.
 */
import type ExcelJS from 'exceljs';

export const loadExcelJS = async (): Promise<typeof ExcelJS> => (await import('exceljs')).default;
