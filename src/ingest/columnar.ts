/** The stored columnar form of a dataset version: encode/decode the frame, read rows out of it.
 * (One import for the services that write and serve datasets.) */
export { encodeFrame, decodeFrame, frameChunks } from "./codec";
export { sliceRows, rowIndexesForIds, type CellValue } from "./rows";
