/**
 * A large encoded frame is stored as an R2 multipart upload: no single request carries gigabytes,
 * and a part that fails on the network is sent again alone. R2 wants every part but the last of
 * one size, at least 5 MiB. The frame is sent as it is written (src/container/frame-stream-thread),
 * so what is left to send when the read ends is up to a part: 16 MiB keeps that short (≈ 0.3 s
 * locally) and a 2 GB frame at 128 parts; 64 MiB parts stored no faster (bench/large/RESULTS.md).
 */
export const FRAME_PART_BYTES = 16 * 1024 * 1024;

/** R2's limit on the parts of one upload. */
export const MAX_FRAME_PARTS = 10_000;
