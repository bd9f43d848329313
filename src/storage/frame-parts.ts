/**
 * A large encoded frame is stored as an R2 multipart upload: no single request carries gigabytes,
 * and a part that fails on the network is sent again alone. R2 wants every part but the last of
 * one size, at least 5 MiB; 64 MiB keeps a 2 GB frame at 32 parts and one part's copy small.
 */
export const FRAME_PART_BYTES = 64 * 1024 * 1024;

/** R2's limit on the parts of one upload. */
export const MAX_FRAME_PARTS = 10_000;
