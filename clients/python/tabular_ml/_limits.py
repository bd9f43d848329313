"""The service's values that change what the client does. The service owns them (its
``src/core/limits.ts``); its OpenAPI document states them, and ``tests/test_unit.py`` checks these
against the repository's ``sdk/openapi.json``."""

#: Files up to this size go in one multipart ``POST /datasets`` (and are the most a sync inference
#: takes); larger ones go through a signed URL: prepare, PUT, complete. (30 MB)
DIRECT_UPLOAD_MAX_BYTES = 31457280

#: The model types the service trains, in its order.
MODEL_TYPES = ("prediction", "anomaly", "embedding", "clustering", "factors", "search", "causal")

#: The create routes that honour an ``Idempotency-Key`` (the service answers a repeated key with the
#: first answer): only these are retried when a request was sent and no answer came back.
IDEMPOTENT_CREATES = (
    "POST /datasets",
    "POST /datasets/upload",
    "POST /api/datasets/batch",
    "POST /models/train",
    "POST /models/{model_id}/retrain",
    "POST /models/{model_id}/infer-async",
    "POST /models/{model_id}/infer-batch",
    "POST /jobs/{job_id}/explain",
    "POST /jobs/{job_id}/retry",
    "POST /api-keys",
)
