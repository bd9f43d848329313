"""The service's answers as typed dictionaries (the JSON as it comes, fields as the OpenAPI
document at ``GET /openapi.json`` names them). Only the fields a client usually reads are
declared; the dictionaries carry every field the service sent."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

ModelType = Literal["prediction", "anomaly", "embedding", "clustering", "factors", "search", "causal"]
JobType = Literal["dataset_ingest", "train", "infer_sync", "infer_batch", "infer_explain"]
JobStatus = Literal[
    "initializing", "pending", "queued", "running", "succeeded", "failed", "canceled", "rejected", "waiting_for_upload"
]
RowId = Union[int, str]


class ValidationItem(TypedDict):
    """One problem of a 422 answer's ``detail``."""

    loc: List[Union[str, int]]
    msg: str
    type: str
    input: Any
    ctx: Dict[str, Any]


class Uploaded(TypedDict):
    """What :meth:`TabularClient.upload` answers: the dataset, its new version and the ingest job."""

    dataset_id: str
    version_id: str
    version_number: Optional[int]
    job_id: str
    method: Literal["direct", "signed"]


class TrainingStarted(TypedDict):
    """What :meth:`TabularClient.train` and :meth:`TabularClient.retrain` answer."""

    model_id: str
    version_id: str
    version_number: int
    job_id: str
    status: str
    service_runtime_version: str


class MetricPoint(TypedDict):
    step: int
    train_loss: Optional[float]
    val_loss: Optional[float]


class ExplanationRow(TypedDict, total=False):
    id: str
    explanation_text: Optional[str]
    explanation_label: Optional[str]
    explanation_gloss: Optional[str]
    feature_contributions: Optional[List[Dict[str, Any]]]
    base_value: Optional[float]
    output_scale: Optional[str]
    prediction: Union[str, float, bool, None]
    probability: Optional[float]
    prediction_flip: Optional[Dict[str, Any]]
    flip_reason: Optional[str]


class Job(TypedDict, total=False):
    """A job's detail (``GET /jobs/{id}``); ``id``, ``type``, ``status`` and ``created_at`` are always there."""

    id: str
    type: JobType
    status: JobStatus
    created_at: str
    started_at: Optional[str]
    finished_at: Optional[str]
    created_by: Optional[Dict[str, Any]]
    actor_name: Optional[str]
    model_type: Optional[ModelType]
    model_id: Optional[str]
    dataset_id: Optional[str]
    dataset_name: Optional[str]
    input_filename: Optional[str]
    parent_job_id: Optional[str]
    input: Optional[Dict[str, Any]]
    output: Optional[Dict[str, Any]]
    resources: Optional[Dict[str, Any]]
    explanations: Optional[List[ExplanationRow]]
    error_message: Optional[str]
    service_runtime_version: Optional[str]
    credits_consumed: Optional[float]
    progress: Optional[float]
    current_step: Optional[int]
    total_steps: Optional[int]
    current_phase: Optional[Literal["ssl", "finetune"]]
    metrics_history: Optional[List[MetricPoint]]


class JobPage(TypedDict):
    items: List[Job]
    next_cursor: Optional[str]


class JobCanceled(TypedDict):
    job_id: str
    status: Literal["canceled"]


class JobRetried(TypedDict):
    job_id: str
    status: JobStatus


class DatasetCurrentVersion(TypedDict):
    version_number: int
    status: str
    row_count: int
    column_count: int


class Dataset(TypedDict):
    dataset_id: str
    name: str
    description: Optional[str]
    created_at: str
    updated_at: str
    current_version: Optional[DatasetCurrentVersion]


class DatasetPage(TypedDict):
    items: List[Dataset]
    next_cursor: Optional[str]


class ModelCurrentVersion(TypedDict, total=False):
    version_id: str
    version: int
    status: str
    metrics: Dict[str, Any]


class Model(TypedDict, total=False):
    model_id: str
    model_name: str
    description: Optional[str]
    model_type: ModelType
    status: Literal["queued", "processing", "ready", "failed"]
    current_metrics: Dict[str, Any]
    current_version: Optional[ModelCurrentVersion]
    training_dataset_id: Optional[str]
    training_dataset_name: Optional[str]
    label_column: str
    created_at: str
    updated_at: str


class ModelPage(TypedDict):
    items: List[Model]
    next_cursor: Optional[str]


class CausalArmEstimate(TypedDict):
    arm: str
    ate: Optional[float]
    std_error: Optional[float]
    ci_low: Optional[float]
    ci_high: Optional[float]
    n: int
    n_treated: Optional[int]


class CausalEffect(TypedDict, total=False):
    """``POST /models/{id}/estimate-causal-effect``: the average effect of the treatment on the outcome."""

    model_id: str
    model_version_id: str
    method: Literal["aipw_cross_fitted", "aipw", "mean_predicted_effect"]
    method_description: str
    data: Dict[str, Any]
    treatment_column: str
    outcome_column: str
    control_value: str
    treated_arms: List[str]
    effect_scale: str
    confidence: Optional[float]
    ate: Optional[float]
    std_error: Optional[float]
    ci_low: Optional[float]
    ci_high: Optional[float]
    n: int
    n_treated: Optional[int]
    n_control: Optional[int]
    estimates: List[CausalArmEstimate]
    group_by: Optional[str]
    groups: Optional[List[Dict[str, Any]]]


class ApiKey(TypedDict):
    id: str
    name: str
    prefix: str
    created_at: str
    revoked_at: Optional[str]
    last_used_at: Optional[str]
    current: bool


class ApiKeyCreated(ApiKey):
    """A new key: ``key`` is its secret, shown in this answer only."""

    key: str


class ApiKeyPage(TypedDict):
    items: List[ApiKey]
    next_cursor: Optional[str]
