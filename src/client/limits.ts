/**
 * How much of an answer the client keeps in memory, per kind of answer. A server that sends
 * more (an endless body, a proxy streaming something else) is cut off at the limit with
 * RESPONSE_TOO_LARGE instead of growing the process until it dies; a body announced larger
 * than the limit is refused before any of it is read. Every limit is far above what a
 * workbench sends for that kind of answer.
 */

const MiB = 1024 * 1024;

/**
 * JSON answers. The largest a workbench writes is a listing page of 1000 nodes or a node's
 * properties, a few hundred kB; 64 MiB leaves room for properties holding long strings.
 */
export const MAX_JSON_BYTES = 64 * MiB;

/**
 * Screenshots. The largest capture the API allows is 8192 x 8192 RGBA: 256 MiB of pixels even
 * stored without compression, plus PNG framing.
 */
export const MAX_IMAGE_BYTES = 320 * MiB;

/** A node's data downloaded directly (`getData`); larger data is fetched with transfer 'file-reference'. */
export const MAX_DATA_BYTES = 1024 * MiB;

/**
 * The body of an error answer. A problem object is a few hundred bytes; of a longer body (an
 * HTML error page) only the start is kept, and the answer is still reported with its status.
 */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Pages of a node listing (1000 nodes each): a listing whose `total_count` keeps growing cannot page forever. */
export const MAX_LIST_PAGES = 1000;
