// The public API of wbplay: a deliberate, short list.
export { VERSION } from './version.js';
