"""The client against the real service, as a notebook user drives it: upload a DataFrame and a
file, wait, train a prediction and a causal model, infer, explain, estimate the effect, list
jobs, manage keys, and an error answer.

The service: ``TABULAR_BASE_URL`` and ``TABULAR_API_KEY`` when both are set, else ``npm start``
run from the repository (``TABULAR_REPO``, default three folders up) on free ports with a fresh
state directory, stopped at the end."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import List, Optional

import pandas as pd

import tabular_ml
from tabular_ml import ApiError, JobFailedError, TabularClient

REPO = Path(os.environ.get("TABULAR_REPO") or Path(__file__).resolve().parents[3])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    """``npm start`` in its own process group, its output kept for the failure message."""

    def __init__(self) -> None:
        self.state = tempfile.mkdtemp(prefix="tabular-py-")
        port, trainer_port = free_port(), free_port()
        env = {**os.environ, "PORT": str(port), "TRAINER_PORT": str(trainer_port), "PERSIST_TO": self.state, "HOST": "127.0.0.1"}
        self.proc = subprocess.Popen(
            ["npm", "start"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.lines: List[str] = []  # filled by the reader thread
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.base = f"http://127.0.0.1:{port}"
        self.key = self._wait_for_key(timeout=180)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append(raw.decode("utf-8", "replace"))

    def output(self) -> str:
        return "".join(self.lines)

    def _wait_for_key(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(r"API key: (sk_\S+)", self.output())
            if found:
                return found.group(1)
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("npm start did not start:\n" + self.output()[-4000:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue
        self.reader.join(timeout=5)
        if self.proc.stdout:
            self.proc.stdout.close()
        subprocess.run(["rm", "-rf", self.state], check=False)


def churn_table(rows: int) -> pd.DataFrame:
    usage = [(i * 37) % 100 for i in range(rows)]
    plan = [["basic", "pro", "team"][i % 3] for i in range(rows)]
    churned = ["yes" if u < 30 or p == "basic" else "no" for u, p in zip(usage, plan)]
    return pd.DataFrame({"usage": usage, "plan": plan, "churned": churned})


def offers_table(rows: int) -> pd.DataFrame:
    """Spend rises by 10 with the offer; older customers get it more often and spend more anyway."""
    age = [20 + (i * 53) % 50 for i in range(rows)]
    offer = [1 if (i * 7919) % 100 < a + 5 else 0 for i, a in enumerate(age)]
    spend = [2 * a + 10 * o + (i * 31) % 7 - 3 for i, (a, o) in enumerate(zip(age, offer))]
    return pd.DataFrame({"age": age, "offer": offer, "spend": spend})


class AgainstTheService(unittest.TestCase):
    service: Optional[Service] = None
    client: TabularClient

    @classmethod
    def setUpClass(cls) -> None:
        base, key = os.environ.get("TABULAR_BASE_URL"), os.environ.get("TABULAR_API_KEY")
        started = time.monotonic()
        if not (base and key):
            cls.service = Service()
            base, key = cls.service.base, cls.service.key
        print(f"\n[service] {base} ready in {time.monotonic() - started:.1f} s; tabular_ml from {tabular_ml.__file__}", flush=True)
        cls.client = TabularClient(base_url=base, api_key=key)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.close()
        if cls.service:
            cls.service.stop()

    def test_notebook_flow(self) -> None:
        c = self.client
        # Upload a DataFrame and a file; both ingested.
        up = c.upload(churn_table(200), name="py churn")
        self.assertEqual(up["method"], "direct")
        self.assertEqual(set(up), {"dataset_id", "version_id", "version_number", "job_id", "method"})
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "offers.csv"
            offers_table(400).to_csv(path, index=False)
            offers = c.upload(path)  # named after the file
        seen: List[str] = []
        ingested = c.wait_for_job(up["job_id"], interval=0.2, on_update=lambda j: seen.append(j["status"]))
        self.assertEqual(ingested["status"], "succeeded")
        self.assertEqual(ingested["type"], "dataset_ingest")
        self.assertTrue(seen)
        self.assertEqual(c.wait_for_job(offers["job_id"], interval=0.2)["status"], "succeeded")
        self.assertEqual(c.preview(up["dataset_id"], limit=3)["plan"].tolist(), ["basic", "pro", "team"])
        names = [d["name"] for d in c.list_datasets(search="offers")["items"]]
        self.assertIn("offers.csv", names)

        # A new version of the same dataset through the signed URL.
        signed = c.upload(churn_table(200), dataset_id=up["dataset_id"], signed=True, wait=True)
        self.assertEqual((signed["method"], signed["dataset_id"], signed["version_number"]), ("signed", up["dataset_id"], 2))

        # Train a small prediction model and a causal one side by side.
        started = c.train(model_name="py churn", model_type="prediction", dataset_id=up["dataset_id"], label_column="churned", params={"max_rounds": 20})
        causal = c.train(model_name="py offers", model_type="causal", dataset_id=offers["dataset_id"], label_column="spend", params={"action_column": "offer"})
        self.assertEqual(set(started) >= {"model_id", "job_id"}, True)
        trained = c.wait_for_job(started["job_id"], interval=0.3)
        self.assertTrue(trained["metrics_history"])
        self.assertEqual(c.get_model(started["model_id"])["status"], "ready")

        # Infer: a DataFrame whose attrs name the inference job; explain two of its rows.
        rows = pd.DataFrame({"usage": [10, 80], "plan": ["pro", "basic"]})
        predicted = c.infer(started["model_id"], rows)
        self.assertIsInstance(predicted, pd.DataFrame)
        self.assertEqual(predicted["prediction"].tolist(), ["yes", "yes"])
        self.assertIn("prediction_prob", predicted.columns)
        job_id = predicted.attrs["job_id"]
        self.assertTrue(job_id)
        why = c.explain(job_id, predicted["id"].tolist())
        self.assertEqual([w["id"] for w in why], ["0", "1"])
        self.assertTrue(why[0]["explanation_text"])

        # The causal estimate over the training data covers the true effect (10).
        c.wait_for_job(causal["job_id"], interval=0.3)
        effect = c.estimate_causal_effect(causal["model_id"])
        self.assertEqual((effect["treatment_column"], effect["method"]), ("offer", "aipw_cross_fitted"))
        low, high = effect["ci_low"], effect["ci_high"]
        assert low is not None and high is not None
        self.assertLess(low, 10)
        self.assertGreater(high, 10)

        # Jobs: listed newest first, filtered; the explanation job is the inference job's child.
        trains = c.list_jobs(type="train", limit=10)["items"]
        self.assertLessEqual({started["model_id"], causal["model_id"]}, {j["model_id"] for j in trains})
        mine = c.list_jobs(model_id=started["model_id"], type="train")["items"]
        self.assertEqual([j["id"] for j in mine], ["job_" + started["job_id"].replace("-", "")])
        children = list(c.iter_jobs(parent_job_id=job_id))
        self.assertEqual([j["type"] for j in children], ["infer_explain"])
        self.assertEqual(c.job_results(job_id)["prediction"].tolist(), ["yes", "yes"])

        # Keys: create, see it listed, revoke it; the revoked key is refused.
        made = c.create_api_key("py test key")
        self.assertTrue(made["key"].startswith("sk_"))
        listed = {k["id"]: k for k in c.list_api_keys()["items"]}
        self.assertIn(made["id"], listed)
        c.revoke_api_key(made["id"])
        self.assertTrue(c.list_api_keys()["items"] and any(k["id"] == made["id"] and k["revoked_at"] for k in c.list_api_keys()["items"]))
        with self.assertRaises(ApiError) as refused, TabularClient(base_url=c.base_url, api_key=made["key"]) as revoked:
            revoked.list_jobs(limit=1)
        self.assertEqual(refused.exception.status, 401)

        # Errors: a 404 and a 422 with their detail.
        with self.assertRaises(ApiError) as missing:
            c.get_model("00000000-0000-4000-8000-000000000000")
        self.assertEqual((missing.exception.status, missing.exception.detail), (404, "Not found"))
        with self.assertRaises(ApiError) as invalid:
            c.train(model_name="bad", model_type="prediction", dataset_id=up["dataset_id"], label_column="nope")
        self.assertEqual(invalid.exception.status, 422)
        problems = invalid.exception.detail
        assert isinstance(problems, list)
        self.assertEqual(problems[0]["loc"], ["body", "label_column"])

        # The same Idempotency-Key twice: one model, the first answer again.
        again = [
            c.train(model_name="twice", model_type="anomaly", dataset_id=up["dataset_id"], idempotency_key="py-test-twice") for _ in range(2)
        ]
        self.assertEqual(again[0]["model_id"], again[1]["model_id"])

        # A job that does not succeed raises with the job.
        long = c.train(
            model_name="canceled", model_type="prediction", dataset_id=up["dataset_id"], label_column="churned", params={"max_rounds": 2000}
        )
        try:
            c.cancel_job(long["job_id"])
        except ApiError as e:  # it may have finished already
            self.assertEqual(e.status, 409)
        else:
            with self.assertRaises(JobFailedError) as ended:
                c.wait_for_job(long["job_id"], interval=0.3)
            self.assertEqual(ended.exception.status, "canceled")


if __name__ == "__main__":
    unittest.main()
