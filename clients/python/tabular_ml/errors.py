"""What the client raises."""

from __future__ import annotations

from typing import Any, List, Optional, Union

from .types import Job, ValidationItem


class TabularError(Exception):
    """Anything this client raises about the service (the classes below)."""


class ApiError(TabularError):
    """The service answered with an error.

    ``status`` is the HTTP status; ``detail`` the answer's ``detail``: a sentence (``"Not found"``)
    or, for a 422, the list of problems (each with ``loc``, ``msg``, ``type``, ``input``, ``ctx``).
    ``body`` is the whole answer (parsed JSON, else its text)."""

    def __init__(self, status: int, detail: Union[str, List[ValidationItem]], body: Any = None) -> None:
        self.status: int = status
        self.detail: Union[str, List[ValidationItem]] = detail
        self.body: Any = body
        super().__init__(f"{status}: {describe_detail(detail)}")


class JobFailedError(TabularError):
    """A job ended otherwise than ``succeeded`` (failed, canceled or rejected); ``job`` is its detail."""

    def __init__(self, job: Job) -> None:
        self.job: Job = job
        self.status: str = job.get("status", "")
        self.detail: Optional[str] = job.get("error_message")
        message = f"Job {job.get('id')} {self.status}"
        super().__init__(f"{message}: {self.detail}" if self.detail else message)


class ConnectionFailed(TabularError):
    """No answer came from the service, after the retries that were safe to make.

    ``sent`` tells whether the request may have reached the service (a reset or a closed
    connection after sending) or surely did not (the connection could not be opened)."""

    def __init__(self, message: str, *, sent: bool, attempts: int) -> None:
        self.sent: bool = sent
        self.attempts: int = attempts
        super().__init__(message)


def describe_detail(detail: Union[str, List[ValidationItem], Any]) -> str:
    """A 422's problems as ``body.field: message`` joined by ``; ``; a sentence as it is."""
    if isinstance(detail, list):
        parts = []
        for item in detail:
            if isinstance(item, dict):
                loc = ".".join(str(p) for p in item.get("loc", []))
                parts.append(f"{loc}: {item.get('msg', '')}" if loc else str(item.get("msg", "")))
            else:
                parts.append(str(item))
        return "; ".join(parts)
    return str(detail)
