"""The client against a scripted local HTTP server (no service): retries of requests that got no
answer (dropped, reset, broken pipe while sending), the Idempotency-Key that makes them safe,
what is not retried, 429s, errors, and the choice between a direct and a signed upload."""

from __future__ import annotations

import json
import socket
import struct
import threading
import unittest
from pathlib import Path
from typing import Any, Dict, List, Tuple
from unittest import mock

import pandas as pd

import tabular_ml
from tabular_ml import ApiError, ConnectionFailed, JobFailedError, TabularClient

# What the server does with one request: ("answer", status, body, headers), ("drop",) to close the
# connection after reading the request, ("reset",) to reset it after reading the request, or
# ("reset-early",) to reset it after the headers, without reading the body.
Action = Tuple[Any, ...]


class Recorded:
    def __init__(self, method: str, path: str, headers: Dict[str, str], body_bytes: int):
        self.method = method
        self.path = path
        self.headers = headers
        self.body_bytes = body_bytes


class ScriptedServer:
    """A tiny HTTP/1.1 server answering each request with the next action of its script."""

    def __init__(self, script: List[Action]):
        self.script = list(script)
        self.requests: List[Recorded] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.sock.close()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                self._handle(conn)
            except OSError:
                pass

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            while True:  # requests on this connection (keep-alive)
                buf = b""
                while b"\r\n\r\n" not in buf:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                head, rest = buf.split(b"\r\n\r\n", 1)
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
                length = int(headers.get("content-length", "0"))
                action = self.script.pop(0) if self.script else ("answer", 500, {"detail": "script exhausted"}, {})
                self.requests.append(Recorded(method, path, headers, length))
                if action[0] == "reset-early":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                body = rest
                while len(body) < length:
                    chunk = conn.recv(1 << 20)
                    if not chunk:
                        return
                    body += chunk
                if action[0] == "drop":
                    return
                if action[0] == "reset":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                _, status, payload, extra = action
                data = b"" if payload is None else json.dumps(payload).encode()
                hdrs = {"Content-Type": "application/json", "Content-Length": str(len(data)), **extra}
                reason = {200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 404: "Not Found"}.get(status, "X")
                out = f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
                conn.sendall(out.encode() + data)


UPLOADED = {"dataset": {"id": "d1", "version_id": "v1", "version_number": 1}, "job_id": "j1", "status": "queued"}
TRAINING = {
    "model": {"id": "m1", "version_id": "mv1", "version_number": 1},
    "job_id": "j2",
    "status": "queued",
    "service_runtime_version": "0.1.0",
}


class ClientAgainstScript(unittest.TestCase):
    def serve(self, *script: Action) -> Tuple[ScriptedServer, TabularClient]:
        server = ScriptedServer(list(script))
        self.addCleanup(server.close)
        client = TabularClient(base_url=server.base, api_key="sk_test", backoff=0.01, timeout=30)
        self.addCleanup(client.close)
        return server, client

    def test_upload_is_retried_after_a_dropped_connection_with_the_same_idempotency_key(self) -> None:
        server, client = self.serve(("drop",), ("answer", 201, UPLOADED, {}))
        up = client.upload(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), name="t")
        self.assertEqual(up, {"dataset_id": "d1", "version_id": "v1", "version_number": 1, "job_id": "j1", "method": "direct"})
        self.assertEqual([r.path for r in server.requests], ["/datasets", "/datasets"])
        keys = [r.headers.get("idempotency-key") for r in server.requests]
        self.assertTrue(keys[0])
        self.assertEqual(keys[0], keys[1])

    def test_train_is_retried_after_a_reset_with_the_same_idempotency_key(self) -> None:
        server, client = self.serve(("reset",), ("reset",), ("answer", 201, TRAINING, {}))
        started = client.train("m", "prediction", "d1", "y", {"max_rounds": 5}, idempotency_key="my-key")
        self.assertEqual((started["model_id"], started["job_id"]), ("m1", "j2"))
        self.assertEqual([r.headers.get("idempotency-key") for r in server.requests], ["my-key"] * 3)

    def test_a_broken_pipe_while_sending_the_body_is_retried(self) -> None:
        # The server resets the connection after the headers of a 4 MB body: the client's send
        # fails (EPIPE or ECONNRESET) before any answer.
        big = pd.DataFrame({"a": range(400_000), "b": ["some text"] * 400_000})
        server, client = self.serve(("reset-early",), ("answer", 201, UPLOADED, {}))
        self.assertEqual(client.upload(big, name="big")["job_id"], "j1")
        self.assertEqual(len(server.requests), 2)
        self.assertGreater(server.requests[1].body_bytes, 4_000_000)

    def test_reads_are_retried(self) -> None:
        job = {"id": "job_1", "type": "train", "status": "succeeded", "created_at": "2026-01-01T00:00:00Z"}
        server, client = self.serve(("drop",), ("answer", 200, job, {}))
        self.assertEqual(client.get_job("job_1")["status"], "succeeded")
        self.assertEqual(len(server.requests), 2)

    def test_a_create_without_an_idempotency_key_is_not_repeated(self) -> None:
        server, client = self.serve(("drop",), ("answer", 201, {"id": "k"}, {}))
        with self.assertRaises(ConnectionFailed) as caught:
            client.create_api_key("ci")
        self.assertTrue(caught.exception.sent)
        self.assertEqual(caught.exception.attempts, 1)
        self.assertEqual(len(server.requests), 1)

    def test_gives_up_after_its_retries(self) -> None:
        server, client = self.serve(*[("drop",)] * 10)
        with self.assertRaises(ConnectionFailed) as caught:
            client.get_job("job_1")
        self.assertEqual(caught.exception.attempts, client.retries + 1)
        self.assertEqual(len(server.requests), client.retries + 1)

    def test_a_refused_connection_is_retried_even_for_a_create(self) -> None:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()  # nothing listens there now
        client = TabularClient(base_url=f"http://127.0.0.1:{port}", api_key="sk_test", backoff=0.01, retries=2)
        with self.assertRaises(ConnectionFailed) as caught:
            client.create_api_key("ci")
        self.assertFalse(caught.exception.sent)
        self.assertEqual(caught.exception.attempts, 3)

    def test_429_waits_its_retry_after(self) -> None:
        page: Dict[str, Any] = {"items": [], "next_cursor": None}
        server, client = self.serve(("answer", 429, {"detail": "Rate limit exceeded"}, {"Retry-After": "0"}), ("answer", 200, page, {}))
        self.assertEqual(client.list_jobs(limit=5), page)
        self.assertEqual(server.requests[1].path, "/jobs?limit=5")

    def test_errors_carry_status_and_detail(self) -> None:
        items = [{"loc": ["body", "label_column"], "msg": "Column missing", "type": "value_error", "input": "y", "ctx": {}}]
        _, client = self.serve(("answer", 404, {"detail": "Not found"}, {}), ("answer", 422, {"detail": items}, {}))
        with self.assertRaises(ApiError) as caught:
            client.get_model("nope")
        self.assertEqual((caught.exception.status, caught.exception.detail), (404, "Not found"))
        with self.assertRaises(ApiError) as caught:
            client.train("m", "prediction", "d1", "y")
        self.assertEqual(caught.exception.status, 422)
        self.assertEqual(caught.exception.detail, items)
        self.assertIn("body.label_column: Column missing", str(caught.exception))

    def test_a_failed_job_raises(self) -> None:
        failed = {"id": "job_1", "type": "train", "status": "failed", "created_at": "x", "error_message": "boom"}
        _, client = self.serve(("answer", 200, failed, {}))
        with self.assertRaises(JobFailedError) as caught:
            client.wait_for_job("job_1", progress=False)
        self.assertEqual((caught.exception.status, caught.exception.detail), ("failed", "boom"))
        self.assertEqual(caught.exception.job["id"], "job_1")

    def test_a_large_table_goes_through_the_signed_url_and_a_lost_complete_is_recognised(self) -> None:
        server, client = self.serve(
            ("answer", 201, None, {}),  # placeholder, replaced below once the base is known
            ("answer", 200, None, {}),
            ("drop",),  # the first complete arrives, its answer is lost
            ("answer", 409, {"detail": "This upload is already completed (dataset version status: ready)."}, {}),
        )
        prepared = {
            "upload": {
                "upload_url": f"{server.base}/signed/put?sig=1",
                "method": "PUT",
                "headers": {"Content-Type": "text/csv"},
                "expires_at": "2030-01-01T00:00:00Z",
            },
            "dataset": {"id": "d9", "version_id": "v9", "version_number": 1, "archived": False},
            "job_id": "j9",
            "status": "waiting_for_upload",
        }
        server.script[0] = ("answer", 201, prepared, {})
        frame = pd.DataFrame({"a": range(100), "b": ["x"] * 100})
        with mock.patch("tabular_ml.client.DIRECT_UPLOAD_MAX_BYTES", 100):
            up = client.upload(frame, name="big one")
        self.assertEqual(up, {"dataset_id": "d9", "version_id": "v9", "version_number": 1, "job_id": "j9", "method": "signed"})
        self.assertEqual(
            [(r.method, r.path) for r in server.requests],
            [("POST", "/datasets/upload"), ("PUT", "/signed/put?sig=1"), ("POST", "/datasets/v9/complete"), ("POST", "/datasets/v9/complete")],
        )
        put = server.requests[1]
        self.assertNotIn("authorization", put.headers)  # the key never goes to the storage host
        self.assertEqual(put.headers["content-type"], "text/csv")
        self.assertEqual(put.body_bytes, len(frame.to_csv(index=False).encode()))

    def test_a_file_path_upload_and_its_content_type(self) -> None:
        server, client = self.serve(("answer", 201, UPLOADED, {}))
        path = Path(self.tmpdir()) / "table.parquet"
        path.write_bytes(b"PAR1....PAR1")
        client.upload(path)
        r = server.requests[0]
        self.assertTrue(r.headers["content-type"].startswith("multipart/form-data"))
        self.assertEqual(tabular_ml.content_type_of("x.PARQUET"), "application/vnd.apache.parquet")
        self.assertEqual(tabular_ml.content_type_of("x.csv"), "text/csv")

    def tmpdir(self) -> str:
        import tempfile

        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        return d.name


class LimitsMatchTheService(unittest.TestCase):
    def test_limits_are_the_openapi_documents(self) -> None:
        here = Path(__file__).resolve()
        spec_path = here.parents[3] / "sdk" / "openapi.json"
        if not spec_path.exists():
            self.skipTest(f"{spec_path} not found (the client outside its repository)")
        spec = json.loads(spec_path.read_text())
        file = spec["paths"]["/datasets"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]["file"]
        self.assertEqual(tabular_ml.DIRECT_UPLOAD_MAX_BYTES, file["maxLength"])
        self.assertEqual(list(tabular_ml.MODEL_TYPES), spec["components"]["schemas"]["Model"]["properties"]["model_type"]["enum"])
        honoured = sorted(
            f"{method.upper()} {path}"
            for path, ops in spec["paths"].items()
            for method, op in ops.items()
            if any(p.get("name", "").lower() == "idempotency-key" for p in op.get("parameters") or [])
        )
        self.assertEqual(sorted(tabular_ml.IDEMPOTENT_CREATES), honoured)


if __name__ == "__main__":
    unittest.main()
