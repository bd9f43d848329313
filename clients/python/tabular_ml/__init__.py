"""Python client of the tabular ML service.

>>> from tabular_ml import TabularClient
>>> client = TabularClient(base_url="http://127.0.0.1:8787", api_key="sk_...")
>>> up = client.upload(df, name="customers")
>>> client.wait_for_job(up["job_id"])
"""

from ._limits import DIRECT_UPLOAD_MAX_BYTES, IDEMPOTENT_CREATES, MODEL_TYPES
from .client import TERMINAL_STATUSES, Table, TabularClient, content_type_of
from .errors import ApiError, ConnectionFailed, JobFailedError, TabularError, describe_detail
from .types import (
    ApiKey,
    ApiKeyCreated,
    ApiKeyPage,
    CausalEffect,
    Dataset,
    DatasetPage,
    ExplanationRow,
    Job,
    JobPage,
    MetricPoint,
    Model,
    ModelPage,
    ModelType,
    TrainingStarted,
    Uploaded,
    ValidationItem,
)

__version__ = "0.1.0"

__all__ = [
    "TabularClient",
    "Table",
    "content_type_of",
    "TERMINAL_STATUSES",
    "DIRECT_UPLOAD_MAX_BYTES",
    "IDEMPOTENT_CREATES",
    "MODEL_TYPES",
    "TabularError",
    "ApiError",
    "JobFailedError",
    "ConnectionFailed",
    "describe_detail",
    "ApiKey",
    "ApiKeyCreated",
    "ApiKeyPage",
    "CausalEffect",
    "Dataset",
    "DatasetPage",
    "ExplanationRow",
    "Job",
    "JobPage",
    "MetricPoint",
    "Model",
    "ModelPage",
    "ModelType",
    "TrainingStarted",
    "Uploaded",
    "ValidationItem",
]
