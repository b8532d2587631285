/**
 * The login: the same users as the API. The password goes to the login call and nowhere else; only
 * the token the service answers is kept, for this tab (docs/adr/0007-consulta-session.md).
 */
import { login } from './api.js';
import { alertBox, h, show } from './dom.js';

/** Only a page of the consulta itself is a place to come back to. */
function backTo(): string {
  const back = new URLSearchParams(location.search).get('volver') ?? '';
  return /^\/consulta(\/|$)/.test(back) && !back.startsWith('//') ? back : '/consulta/';
}

/**
 * The login form. `then` shows the page asked for in place once logged in (its address stays as it
 * is); without it, the login page goes back to the page named in `volver`.
 */
export function showLogin(then: (() => void) | null): void {
  const user = h('input', { id: 'usuario', name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const password = h('input', { id: 'contrasena', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const message = h('div', { class: 'mensaje' });
  const submit = h('button', { type: 'submit' }, 'Entrar');
  const form = h(
    'form',
    { class: 'acceso', 'aria-labelledby': 'titulo-acceso' },
    h('p', {}, h('label', { for: 'usuario' }, 'Usuario'), user),
    h('p', {}, h('label', { for: 'contrasena' }, 'Contraseña'), password),
    message,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    message.replaceChildren();
    login(user.value, password.value)
      .then((result) => {
        password.value = '';
        if (result.ok) {
          if (then === null) location.assign(backTo());
          else then();
          return;
        }
        submit.disabled = false;
        message.replaceChildren(alertBox(result.message));
        password.focus();
      })
      .catch(() => {
        password.value = '';
        submit.disabled = false;
        message.replaceChildren(alertBox('No se pudo comunicar con el servicio. Intente de nuevo.'));
      });
  });
  show('Entrar', h('h1', { id: 'titulo-acceso' }, 'Entrar a la consulta'), h('p', {}, 'Use su usuario y contraseña del servicio.'), form);
  user.focus();
}
