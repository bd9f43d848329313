/** The stored columnar form of a dataset version: encode/decode the frame, read rows out of it.
 * (One import for the services that write and serve datasets.) */
export { decodeFrame, encodeFrame, frameChunks } from "./codec";
export { rowIndexesForIds, sliceRows } from "./rows";
