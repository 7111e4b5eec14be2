import type { SimNode } from '../datastore-types.js';
import type { DataStore, PropertyScope } from '../datastore.js';
import type { SimRequest } from '../http-types.js';
import { Problem } from '../problem.js';
import { scopeParam, WRITE_SCOPES } from './request-body.js';

/*
 * The real server checks a request's UID and property key before it looks the node up
 * (Modules/RESTAPI/test/mitkInputValidationTest.cpp): a malformed one is a 400 even when no
 * such node exists, so a client learns that its request is wrong, not that a node is missing.
 */

const MAX_UID = 64;
export const MAX_PROPERTY_KEY = 256;
const UID_CHARACTERS = /^[A-Za-z0-9_-]+$/;

/** A node UID: letters, digits, `-` and `_`, 1 to 64 of them. */
export function checkUid(uid: string): void {
  if (uid.length === 0 || uid.length > MAX_UID || !UID_CHARACTERS.test(uid)) {
    throw new Problem(
      'INVALID_REQUEST',
      `Invalid node UID '${uid.slice(0, 80)}': a UID is 1 to ${MAX_UID} letters, digits, '-' or '_'`,
    );
  }
}

/** Why a property key is refused, or undefined; `restapi.` keys are the server's own and never written. */
export function keyProblem(key: string, write: boolean): string | undefined {
  if (key.length === 0) return 'a property key must not be empty';
  if (key.length > MAX_PROPERTY_KEY) return `a property key is at most ${MAX_PROPERTY_KEY} characters long`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'a property key must not contain control characters';
  if (write && key.startsWith('restapi.')) return `'${key}' is reserved for the server`;
  return undefined;
}

/** A key in a request path; a read of a `restapi.` key is left to answer 404, as the server does. */
export function checkKey(key: string, write: boolean): void {
  const problem = keyProblem(key, write);
  if (problem !== undefined) throw new Problem('INVALID_REQUEST', `Invalid property key: ${problem}`);
}

/**
 * The scope a write addresses. `all` is for reading: the real server refuses a write or a
 * delete there (mitkDataStorageBridgeTest.cpp, MutationRejectsAllScope) instead of picking one
 * of the two lists; other unknown values keep the default, as its parameter parsing does.
 */
export function writeScope(req: SimRequest): PropertyScope {
  if (req.query.get('property_scope') === 'all') {
    throw new Problem(
      'INVALID_REQUEST',
      "property_scope 'all' is for reading; write or delete at property_scope 'node' or 'data'",
    );
  }
  return scopeParam<PropertyScope>(req, WRITE_SCOPES, 'node');
}

/** The node of a request's UID: a malformed UID is a 400 before the lookup's 404. */
export function requireNode(store: DataStore, uid: string): SimNode {
  checkUid(uid);
  return store.require(uid);
}
