"""The client: :class:`TabularClient`."""

from __future__ import annotations

import io
import os
import re
import sys
import time
import uuid
from email.utils import parsedate_to_datetime
from typing import IO, Any, Callable, Collection, Dict, Iterator, List, Mapping, Optional, Sequence, Set, TextIO, Tuple, Union, cast
from urllib.parse import quote

import pandas as pd
import requests

from ._limits import DIRECT_UPLOAD_MAX_BYTES
from .errors import ApiError, ConnectionFailed, JobFailedError
from .types import (
    ApiKey,
    ApiKeyCreated,
    ApiKeyPage,
    CausalEffect,
    Dataset,
    DatasetPage,
    ExplanationRow,
    Job,
    JobCanceled,
    JobPage,
    JobRetried,
    Model,
    ModelPage,
    ModelType,
    RowId,
    TrainingStarted,
    Uploaded,
)

#: A table: a DataFrame (sent as CSV), or the path of a CSV or Parquet file.
Table = Union[pd.DataFrame, str, "os.PathLike[str]"]

TERMINAL_STATUSES = frozenset({"succeeded", "failed", "canceled", "rejected"})

_CONTENT_TYPES = {
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "txt": "text/plain",
    "parquet": "application/vnd.apache.parquet",
    "pq": "application/vnd.apache.parquet",
}


def content_type_of(filename: str) -> str:
    """The media type the service reads for a file name (by its extension; CSV otherwise)."""
    return _CONTENT_TYPES.get(filename.rsplit(".", 1)[-1].lower() if "." in filename else "", "text/csv")


class _Payload:
    """A table's bytes ready to send: in memory (a DataFrame as CSV) or a file on disk."""

    def __init__(self, filename: str, size: int, content_type: str, data: Optional[bytes] = None, path: Optional[str] = None):
        self.filename = filename
        self.size = size
        self.content_type = content_type
        self.data = data
        self.path = path

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        with open(cast(str, self.path), "rb") as f:
            return f.read()

    def open(self) -> IO[bytes]:
        return io.BytesIO(self.data) if self.data is not None else open(cast(str, self.path), "rb")


def _payload(data: Table, default_stem: str) -> _Payload:
    if isinstance(data, pd.DataFrame):
        body = data.to_csv(index=False).encode("utf-8")
        stem = re.sub(r"[^\w.-]+", "_", default_stem).strip("._") or "data"
        return _Payload(f"{stem}.csv", len(body), "text/csv", data=body)
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        if not os.path.isfile(path):
            raise FileNotFoundError(path)
        name = os.path.basename(path)
        return _Payload(name, os.path.getsize(path), content_type_of(name), path=path)
    raise TypeError(f"expected a pandas DataFrame or a file path, got {type(data).__name__}")


def _never_sent(exc: requests.exceptions.ConnectionError) -> bool:
    """True when the connection could not be opened, so the request surely did not reach the service."""
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    seen: Set[int] = set()
    todo: List[Any] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        name = type(e).__name__
        if name in ("NewConnectionError", "ConnectTimeoutError", "ConnectionRefusedError", "NameResolutionError"):
            return True
        todo.extend([getattr(e, "reason", None), e.__cause__, e.__context__])
        todo.extend(a for a in getattr(e, "args", ()) if isinstance(a, BaseException))
    return False


def _retry_after_s(header: Optional[str]) -> Optional[float]:
    if not header:
        return None
    try:
        return max(0.0, float(header))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(header).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _api_error(res: requests.Response) -> ApiError:
    body: Any
    try:
        body = res.json()
    except ValueError:
        body = res.text
    detail = body.get("detail") if isinstance(body, dict) else None
    if not isinstance(detail, (str, list)):
        detail = (res.text[:500] if isinstance(res.text, str) else "") or res.reason or f"HTTP {res.status_code}"
    return ApiError(res.status_code, detail, body)


class TabularClient:
    """A client of the tabular ML service.

    >>> client = TabularClient(base_url="http://127.0.0.1:8787", api_key="sk_...")

    Every call answers the service's JSON (typed dictionaries, :mod:`tabular_ml.types`) or a
    DataFrame, and raises :class:`~tabular_ml.ApiError` (``status``, ``detail``) on an error answer.

    Retries: a 429 is retried after its ``Retry-After`` (up to ``rate_limit_retries`` times). A
    request that got no answer at all (connection refused, reset or closed before any response)
    is retried up to ``retries`` times when that cannot do anything twice: when it never reached
    the service, when it reads (GET) or deletes, and for the creates that send an
    ``Idempotency-Key`` (upload, train, retrain; the service answers a repeated key with the first
    answer). Otherwise :class:`~tabular_ml.ConnectionFailed` is raised.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 300.0,
        retries: int = 3,
        rate_limit_retries: int = 5,
        backoff: float = 0.5,
        session: Optional[requests.Session] = None,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required, e.g. http://127.0.0.1:8787")
        if not api_key:
            raise ValueError("api_key is required (npm start prints one)")
        self.base_url: str = base_url.rstrip("/")
        self.timeout: float = timeout
        self.retries: int = retries
        self.rate_limit_retries: int = rate_limit_retries
        self.backoff: float = backoff
        self._api_key = api_key
        self._session = session or requests.Session()

    def __repr__(self) -> str:
        return f"TabularClient(base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the pooled connections."""
        self._session.close()

    def __enter__(self) -> "TabularClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ── transport ────────────────────────────────────────────────────────────────────────────────

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Any = None,
        data: Any = None,
        files: Any = None,
        headers: Optional[Dict[str, str]] = None,
        retry_unanswered: Optional[bool] = None,
        authorized: bool = True,
        accept_on_retry: Collection[int] = (),
    ) -> requests.Response:
        """One call, with the retries described on the class. ``path`` is a path of the service or
        an absolute URL (a signed upload URL: sent without the API key). ``data`` may be a function
        answering a fresh body for each attempt (a file opened anew). ``accept_on_retry``: statuses
        taken as success when they answer a retry of a request that may have arrived (e.g. 409
        "already completed")."""
        url = path if re.match(r"^https?://", path) else self.base_url + path
        hdrs: Dict[str, str] = dict(headers or {})
        if authorized:
            hdrs["Authorization"] = f"Bearer {self._api_key}"
        if retry_unanswered is None:
            retry_unanswered = method in ("GET", "HEAD", "PUT", "DELETE", "OPTIONS") or "Idempotency-Key" in hdrs
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        unanswered = 0
        limited = 0
        maybe_arrived = False
        while True:
            body = data() if callable(data) else data
            try:
                res = self._session.request(
                    method, url, params=clean, json=json, data=body, files=files, headers=hdrs, timeout=self.timeout
                )
            except requests.exceptions.ConnectionError as e:
                sent = not _never_sent(e)
                if not (retry_unanswered or not sent) or unanswered >= self.retries:
                    how = "sent, but no answer came back" if sent else "the connection could not be opened"
                    raise ConnectionFailed(
                        f"{method} {url}: {how} ({e}); {unanswered + 1} attempt(s)"
                        + ("" if retry_unanswered or not sent else "; not retried: repeating it could do it twice"),
                        sent=sent,
                        attempts=unanswered + 1,
                    ) from e
                maybe_arrived = maybe_arrived or sent
                time.sleep(self.backoff * 2**unanswered)
                unanswered += 1
                continue
            finally:
                if hasattr(body, "close"):
                    body.close()
            if res.status_code == 429 and limited < self.rate_limit_retries and res.headers.get("RateLimit-Scope") != "address":
                wait = _retry_after_s(res.headers.get("Retry-After"))
                res.close()
                time.sleep(min(60.0, wait if wait is not None else 2.0**limited))
                limited += 1
                continue
            if maybe_arrived and res.status_code in accept_on_retry:
                return res
            if not res.ok:
                raise _api_error(res)
            return res

    def _json(self, method: str, path: str, **kw: Any) -> Any:
        res = self._request(method, path, **kw)
        if res.status_code == 204 or not res.content:
            return None
        return res.json()

    @staticmethod
    def _idempotency(key: Optional[str]) -> Dict[str, str]:
        return {"Idempotency-Key": key or str(uuid.uuid4())}

    @staticmethod
    def _path_id(value: str) -> str:
        return quote(str(value), safe="")

    # ── datasets ─────────────────────────────────────────────────────────────────────────────────

    def upload(
        self,
        data: Table,
        name: Optional[str] = None,
        *,
        dataset_id: Optional[str] = None,
        description: Optional[str] = None,
        signed: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
        wait: bool = False,
    ) -> Uploaded:
        """Upload a table as a new dataset named ``name`` (or as a new version of ``dataset_id``).

        ``data`` is a DataFrame (sent as CSV, without its index) or the path of a CSV or Parquet
        file. Up to 30 MB it goes in one ``POST /datasets``; larger (or with ``signed=True``)
        through a signed URL: prepare, PUT the bytes, complete. Answers once the ingest job is
        queued (``wait=True``: once it succeeded); :meth:`wait_for_job` follows it."""
        payload = _payload(data, name or "dataframe")
        dataset_name = name or (payload.filename if not isinstance(data, pd.DataFrame) else "dataframe")
        use_signed = signed if signed is not None else payload.size > DIRECT_UPLOAD_MAX_BYTES
        up = (
            self._upload_signed(payload, dataset_name, dataset_id, description)
            if use_signed
            else self._upload_direct(payload, dataset_name, dataset_id, description, idempotency_key)
        )
        if wait:
            self.wait_for_job(up["job_id"])
        return up

    def _upload_direct(
        self, payload: _Payload, name: str, dataset_id: Optional[str], description: Optional[str], idempotency_key: Optional[str]
    ) -> Uploaded:
        fields: Dict[str, str] = {"dataset_id": dataset_id} if dataset_id else {"dataset_name": name}
        if description:
            fields["description"] = description
        files = {"file": (payload.filename, payload.read(), payload.content_type)}
        r = self._json("POST", "/datasets", data=fields, files=files, headers=self._idempotency(idempotency_key))
        return {
            "dataset_id": r["dataset"]["id"],
            "version_id": r["dataset"]["version_id"],
            "version_number": r["dataset"].get("version_number"),
            "job_id": r["job_id"],
            "method": "direct",
        }

    def _upload_signed(self, payload: _Payload, name: str, dataset_id: Optional[str], description: Optional[str]) -> Uploaded:
        body: Dict[str, Any] = {"dataset_id": dataset_id} if dataset_id else {"dataset_name": name}
        if description:
            body["description"] = description
        body["file"] = {"filename": payload.filename, "bytes": payload.size, "content_type": payload.content_type}
        # Not retried once sent: the service keeps no Idempotency-Key for it (a second one would
        # leave a dataset version waiting for an upload).
        prepared = self._json("POST", "/datasets/upload", json=body, retry_unanswered=False)
        upload, dataset = prepared["upload"], prepared["dataset"]
        put_headers = {"Content-Type": upload["headers"]["Content-Type"], "Content-Length": str(payload.size)}
        # The same bytes to the same URL: safe to repeat. Without the API key (it may be R2's host).
        self._request(upload.get("method", "PUT"), upload["upload_url"], data=payload.open, headers=put_headers, authorized=False)
        complete = f"/datasets/{self._path_id(dataset['version_id'])}/complete"
        res = self._request("POST", complete, retry_unanswered=True, accept_on_retry=(409,))
        if res.status_code == 409:  # a retry found it completed by the attempt whose answer was lost
            return {
                "dataset_id": dataset["id"],
                "version_id": dataset["version_id"],
                "version_number": dataset.get("version_number"),
                "job_id": prepared["job_id"],
                "method": "signed",
            }
        done = res.json()
        return {
            "dataset_id": done["dataset_id"],
            "version_id": done["dataset_version_id"],
            "version_number": dataset.get("version_number"),
            "job_id": done["job_id"],
            "method": "signed",
        }

    def list_datasets(self, *, limit: Optional[int] = None, cursor: Optional[str] = None, search: Optional[str] = None) -> DatasetPage:
        """One page of datasets, newest first (``next_cursor`` gives the next)."""
        return cast(DatasetPage, self._json("GET", "/datasets", params={"limit": limit, "cursor": cursor, "search": search}))

    def get_dataset(self, dataset_id: str) -> Dict[str, Any]:
        """A dataset with its column profile."""
        return cast(Dict[str, Any], self._json("GET", f"/datasets/{self._path_id(dataset_id)}"))

    def preview(self, dataset_id: str, *, limit: Optional[int] = None) -> pd.DataFrame:
        """Sample rows of the dataset's latest ready version, as a DataFrame."""
        r = self._json("GET", f"/datasets/{self._path_id(dataset_id)}/preview", params={"limit": limit})
        frame = pd.DataFrame(r["rows"], columns=[c["name"] for c in r["columns"]] or None)
        frame.attrs.update({k: r.get(k) for k in ("dataset_id", "dataset_version_id", "version_number", "total_rows")})
        return frame

    def delete_dataset(self, dataset_id: str) -> None:
        """Delete a dataset, its versions and their stored files."""
        self._request("DELETE", f"/datasets/{self._path_id(dataset_id)}")

    # ── jobs ─────────────────────────────────────────────────────────────────────────────────────

    def get_job(self, job_id: str) -> Job:
        """A job's detail (either id form: the UUID or ``job_<hex>``)."""
        return cast(Job, self._json("GET", f"/jobs/{self._path_id(job_id)}"))

    def list_jobs(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        type: Optional[str] = None,
        status: Optional[str] = None,
        model_id: Optional[str] = None,
        dataset_id: Optional[str] = None,
        parent_job_id: Optional[str] = None,
    ) -> JobPage:
        """One page of jobs, newest first, filtered by any of the arguments."""
        params = {
            "limit": limit,
            "cursor": cursor,
            "type": type,
            "status": status,
            "model_id": model_id,
            "dataset_id": dataset_id,
            "parent_job_id": parent_job_id,
        }
        return cast(JobPage, self._json("GET", "/jobs", params=params))

    def iter_jobs(self, **filters: Any) -> Iterator[Job]:
        """Every job matching ``filters`` (those of :meth:`list_jobs`), page after page."""
        cursor: Optional[str] = None
        while True:
            page = self.list_jobs(cursor=cursor, **filters)
            yield from page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def cancel_job(self, job_id: str) -> JobCanceled:
        """Cancel a queued or running job (best effort)."""
        return cast(JobCanceled, self._json("POST", f"/jobs/{self._path_id(job_id)}/cancel", retry_unanswered=True))

    def retry_job(self, job_id: str) -> JobRetried:
        """Start a failed job again: answers the new job."""
        return cast(JobRetried, self._json("POST", f"/jobs/{self._path_id(job_id)}/retry"))

    def wait_for_job(
        self,
        job_id: str,
        *,
        interval: float = 1.0,
        timeout: Optional[float] = None,
        progress: Optional[bool] = None,
        on_update: Optional[Callable[[Job], None]] = None,
        stream: Optional[TextIO] = None,
    ) -> Job:
        """Poll a job until it ends; answer it when it succeeded, else raise
        :class:`~tabular_ml.JobFailedError` (its ``job``, ``status`` and ``detail``).

        ``progress``: a line on stderr updated at each poll (status, percent, steps, phase, the
        latest losses); by default only when stderr is a terminal. ``on_update`` is called with
        the job at each poll. ``timeout`` (seconds): raise ``TimeoutError`` after it."""
        out = stream or sys.stderr
        show = progress if progress is not None else bool(getattr(out, "isatty", lambda: False)())
        deadline = None if timeout is None else time.monotonic() + timeout
        shown = False
        try:
            while True:
                job = self.get_job(job_id)
                if on_update:
                    on_update(job)
                if show:
                    out.write("\r" + _progress_line(job) + "\x1b[K")
                    out.flush()
                    shown = True
                status = job.get("status")
                if status in TERMINAL_STATUSES:
                    if status != "succeeded":
                        raise JobFailedError(job)
                    return job
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeoutError(f"job {job_id} still {status} after {timeout} s")
                time.sleep(interval)
        finally:
            if shown:
                out.write("\n")
                out.flush()

    # ── models ───────────────────────────────────────────────────────────────────────────────────

    def train(
        self,
        model_name: str,
        model_type: ModelType,
        dataset_id: Optional[str] = None,
        label_column: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        *,
        dataset_version_id: Optional[str] = None,
        input_columns: Optional[Sequence[str]] = None,
        description: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        wait: bool = False,
    ) -> TrainingStarted:
        """Start training a model on a dataset (its latest ready version) or ``dataset_version_id``.

        ``label_column`` is the target of a prediction model and the outcome of a causal one;
        ``params`` the model type's parameters (e.g. ``{"max_rounds": 200}``, or
        ``{"action_column": "offer"}`` for causal). Answers ``model_id`` and ``job_id`` once the job
        is queued (``wait=True``: once it succeeded)."""
        body: Dict[str, Any] = {"model_name": model_name, "model_type": model_type}
        for key, value in (
            ("dataset_id", dataset_id),
            ("dataset_version_id", dataset_version_id),
            ("label_column", label_column),
            ("input_columns", list(input_columns) if input_columns is not None else None),
            ("description", description),
            ("params", dict(params) if params is not None else None),
        ):
            if value is not None:
                body[key] = value
        r = self._json("POST", "/models/train", json=body, headers=self._idempotency(idempotency_key))
        started = _training_started(r)
        if wait:
            self.wait_for_job(started["job_id"])
        return started

    def retrain(
        self,
        model_id: str,
        *,
        dataset_id: Optional[str] = None,
        dataset_version_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> TrainingStarted:
        """Train a new version of a model on new data (exactly one of the two), with its configuration."""
        body = {k: v for k, v in (("dataset_id", dataset_id), ("dataset_version_id", dataset_version_id)) if v is not None}
        r = self._json("POST", f"/models/{self._path_id(model_id)}/retrain", json=body, headers=self._idempotency(idempotency_key))
        return _training_started(r)

    def get_model(self, model_id: str) -> Model:
        """A model: its status, current version and metrics."""
        return cast(Model, self._json("GET", f"/models/{self._path_id(model_id)}"))

    def list_models(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        model_type: Optional[str] = None,
        dataset_id: Optional[str] = None,
        status: Optional[str] = None,
    ) -> ModelPage:
        """One page of models, newest first."""
        params = {"limit": limit, "cursor": cursor, "model_type": model_type, "dataset_id": dataset_id, "status": status}
        return cast(ModelPage, self._json("GET", "/models", params=params))

    def delete_model(self, model_id: str) -> None:
        """Delete a model and its versions."""
        self._request("DELETE", f"/models/{self._path_id(model_id)}")

    # ── inference ────────────────────────────────────────────────────────────────────────────────

    def infer(self, model_id: str, data: Table, *, model_version_id: Optional[str] = None) -> pd.DataFrame:
        """Run a model on a table (a DataFrame or a CSV/Parquet path, at most 30 MB) and answer its
        output as a DataFrame, one row per input row (columns by model type: ``id``, then e.g.
        ``prediction``, ``prediction_prob``, ``prob_<class>``). ``attrs`` holds ``job_id`` (the
        inference job, for :meth:`explain`), ``model_id``, ``model_version_id``, ``model_type``,
        ``model_name`` and ``latency_ms``."""
        payload = _payload(data, "rows")
        _check_direct_size(payload)
        fields: Dict[str, str] = {"output_type": "json"}
        if model_version_id:
            fields["model_version_id"] = model_version_id
        files = {"file": (payload.filename, payload.read(), payload.content_type)}
        # A repeat records one more inference job and changes nothing else: retried like a read.
        r = self._json("POST", f"/models/{self._path_id(model_id)}/infer", data=fields, files=files, retry_unanswered=True)
        frame = pd.DataFrame(r["data"])
        for key in ("job_id", "model_id", "model_version_id", "model_type", "model_name", "latency_ms"):
            frame.attrs[key] = r.get(key)
        return frame

    def explain(
        self, job_id: str, ids: Sequence[RowId], *, wait: bool = True, interval: float = 0.5, timeout: Optional[float] = None
    ) -> List[ExplanationRow]:
        """Why rows of a succeeded inference job got their output: ``ids`` are values of its ``id``
        column (1 to 500). Starts an explanation job and waits for it; answers its rows (each with
        ``explanation_text``, ``feature_contributions``, ``prediction_flip``…). With ``wait=False``
        answers ``[]`` at once (the job is then among :meth:`list_jobs` with ``parent_job_id``).

        Right after a sync inference the service may not have recorded its job yet (it does so
        just after answering): a 404 for it is waited out for up to about 10 s."""
        ids_list = [i.item() if hasattr(i, "item") else i for i in ids]  # numpy scalars to int / str
        for attempt in range(40):
            try:
                self.get_job(job_id)
                break
            except ApiError as e:
                if e.status != 404 or attempt == 39:
                    raise
                time.sleep(0.25)
        started = self._json("POST", f"/jobs/{self._path_id(job_id)}/explain", json={"ids": ids_list})
        if not wait:
            return []
        job = self.wait_for_job(started["id"], interval=interval, timeout=timeout, progress=False)
        return list(job.get("explanations") or [])

    def estimate_causal_effect(
        self,
        model_id: str,
        data: Optional[Table] = None,
        *,
        dataset_id: Optional[str] = None,
        dataset_version_id: Optional[str] = None,
        group_by: Optional[str] = None,
        model_version_id: Optional[str] = None,
    ) -> CausalEffect:
        """The average effect of a causal model's treatment on its outcome, with its 95% interval:
        over the training data (cross-fitted) by default, else over ``data`` (a DataFrame or a file)
        or a stored dataset. ``group_by``: the effect per value of that column too."""
        path = f"/models/{self._path_id(model_id)}/estimate-causal-effect"
        if data is not None:
            payload = _payload(data, "rows")
            _check_direct_size(payload)
            fields = {k: v for k, v in (("group_by", group_by), ("model_version_id", model_version_id)) if v is not None}
            files = {"file": (payload.filename, payload.read(), payload.content_type)}
            return cast(CausalEffect, self._json("POST", path, data=fields, files=files, retry_unanswered=True))
        body = {
            k: v
            for k, v in (
                ("dataset_id", dataset_id),
                ("dataset_version_id", dataset_version_id),
                ("group_by", group_by),
                ("model_version_id", model_version_id),
            )
            if v is not None
        }
        # An estimate changes nothing: retried like a read.
        return cast(CausalEffect, self._json("POST", path, json=body, retry_unanswered=True))

    def job_results(self, job_id: str, *, page_size: int = 1000) -> pd.DataFrame:
        """A succeeded inference job's results (sync, async or batch) as one DataFrame."""
        frames: List[pd.DataFrame] = []
        cursor: Optional[str] = None
        while True:
            params = {"format": "json", "limit": page_size, "cursor": cursor}
            page = self._json("GET", f"/jobs/{self._path_id(job_id)}/results", params=params)
            frames.append(pd.DataFrame(page["data"], columns=page.get("columns") or None))
            cursor = page.get("next_cursor")
            if not cursor:
                break
        out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        out.attrs["job_id"] = job_id
        return out

    # ── API keys ─────────────────────────────────────────────────────────────────────────────────

    def create_api_key(self, name: str) -> ApiKeyCreated:
        """A new key of the organization; its secret (``key``) is in this answer only."""
        return cast(ApiKeyCreated, self._json("POST", "/api-keys", json={"name": name}))

    def list_api_keys(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> ApiKeyPage:
        """The organization's keys (revoked ones too, with ``revoked_at``; ``current`` marks this one)."""
        return cast(ApiKeyPage, self._json("GET", "/api-keys", params={"limit": limit, "cursor": cursor}))

    def revoke_api_key(self, key_id: str) -> None:
        """Revoke a key: it stops working."""
        self._request("DELETE", f"/api-keys/{self._path_id(key_id)}")


def _training_started(r: Dict[str, Any]) -> TrainingStarted:
    return {
        "model_id": r["model"]["id"],
        "version_id": r["model"]["version_id"],
        "version_number": r["model"]["version_number"],
        "job_id": r["job_id"],
        "status": r["status"],
        "service_runtime_version": r.get("service_runtime_version", ""),
    }


def _check_direct_size(payload: _Payload) -> None:
    if payload.size > DIRECT_UPLOAD_MAX_BYTES:
        raise ValueError(
            f"{payload.filename} is {payload.size} bytes; a file sent with the request may be at most "
            f"{DIRECT_UPLOAD_MAX_BYTES} bytes (30 MB): upload it as a dataset and run a batch inference"
        )


def _progress_line(job: Job) -> str:
    parts: List[str] = [str(job.get("id", "")), str(job.get("type", "")), str(job.get("status", ""))]
    pct = job.get("progress")
    if pct is not None:
        parts.append(f"{pct:.0f}%")
    step, total = job.get("current_step"), job.get("total_steps")
    if step is not None and total:
        parts.append(f"step {step}/{total}")
    if job.get("current_phase"):
        parts.append(str(job.get("current_phase")))
    history = job.get("metrics_history") or []
    if history:
        last = history[-1]
        losses: List[Tuple[str, Optional[float]]] = [("train_loss", last.get("train_loss")), ("val_loss", last.get("val_loss"))]
        parts.extend(f"{k} {v:.4g}" for k, v in losses if v is not None)
    return " ".join(parts)


__all__ = ["TabularClient", "Table", "content_type_of", "TERMINAL_STATUSES"]
