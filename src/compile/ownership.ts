// Who may change weft's cache: it holds code a check loads (libraries, V8 code caches), so
// what another user owns, or may write, is never loaded from it.
import type { Stats } from 'node:fs';

/** Every folder weft creates in its cache: the owner's only, as the XDG base-directory spec asks of $XDG_CACHE_HOME. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** Owned by a user other than this process's (never, where there are no user ids). */
export function ownedByAnotherUser(status: Stats): boolean {
  const uid = process.getuid?.();
  return uid !== undefined && status.uid !== uid;
}

/** Writable by the group or by other users. */
export const writableByOthers = (status: Stats): boolean => (status.mode & 0o022) !== 0;
