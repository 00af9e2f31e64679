"""The Readings re-check's seeded witness walks in the bytecode interpreter (`witness_native`)
against the Python walks (`witness._walked`): the same witness (its states) after the same
number of states, or none within the same budget, for every verdict sought (a stuck state, each
outcome, a state from which no play ends, with and without stuck states as ends), on random
models under every reading and on the bundled models; where the interpreter meets an error it
leaves the walks to Python, and `find_verdict` answers as before."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from checker.analysis import witness, witness_native  # noqa: E402
from checker.analysis.evidence import CAN_END, ENDS_SURELY, OUTCOME, STUCK_REACHABLE  # noqa: E402
from checker.lang.build import load_model  # noqa: E402
from checker.lang.model import Config, Model  # noqa: E402
from tests.symbolic_support import write_game  # noqa: E402
from tests.test_dominated import RACE  # noqa: E402
from tests.test_engines_agree import models  # noqa: E402
from tests.test_native import BUNDLED, EXAMPLES, HERE, counted, generated_configs  # noqa: E402
from tests.test_simulate_native import ERRORS  # noqa: E402


def verdicts(model: Model) -> list[str]:
    """Every verdict `find_verdict` is asked for: a stuck state, each outcome the model can
    name (an integer outcome: a few values), no end (two ways)."""
    outcome = model.outcome
    if outcome is None:
        labels = ["finished"]
    elif outcome.type.kind == "enum":
        labels = list(model.scope.domain_of(outcome.type).members)
    elif outcome.type.kind == "bool":
        labels = ["True", "False"]
    else:
        labels = ["0", "1", "2", "-1", "x"]
    return [STUCK_REACHABLE, CAN_END, ENDS_SURELY, *(OUTCOME + label for label in labels)]


def agree(model: Model, config: Config, name: str, budget: int, length: int, seed: int) -> bool:
    """The two walks meet the same witness after as many states (True), or the interpreter left
    them to Python (False: it met an error on the way)."""
    _, python_path, python_spent = witness._walked(model, config, name, budget, length, seed)
    native = witness._walked_natively(model, config, name, budget, length, seed)
    if native is None:
        return False
    _, native_path, native_spent = native
    assert (native_path, native_spent) == (python_path, python_spent), (name, budget, length, seed)
    return True


@settings(max_examples=2 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(models(), st.integers(0, 2**32 - 1))
def test_native_walks_agree_on_random_models(case, seed):
    for model, config, _ in generated_configs(case):
        for name in verdicts(model):
            for budget, length in ((400, 50), (60, 3), (5, 1)):
                agree(model, config, name, budget, length, seed)


@pytest.mark.parametrize("path", BUNDLED, ids=[os.path.relpath(p, HERE) for p in BUNDLED])
def test_native_walks_agree_on_bundled_models(path):
    """Every bundled model, default configuration, each verdict under a short budget and the
    Readings re-check's walk length for a shallow game, and under a longer one."""
    model = load_model(path)
    if model.abstract:
        pytest.skip("abstract model")
    compared = [agree(model, model.default_config(), name, budget, witness.walk_length(depth), witness.SEED)
                for name in verdicts(model) for budget, depth in ((3_000, 5), (40_000, 20))]
    assert all(compared)  # no bundled model meets an error: every walk ran in the interpreter


def test_a_walk_meeting_an_error_is_left_to_the_python_walks(tmp_path):
    model = load_model(write_game(str(tmp_path), "errors", ERRORS))
    config = model.default_config()
    assert witness._walked_natively(model, config, CAN_END, 2_000, 50, witness.SEED) is None
    found = witness.find_verdict(model, config, CAN_END, 2_000, 5)
    assert found.states > 0


def test_find_verdict_walks_natively(monkeypatch, tmp_path):
    """`find_verdict` walks in the interpreter when numba is installed, meets the same witness
    after as many states as the Python walk, and confirms it in the reference interpreter (a
    self-contained game: the bundled ones change with their audits)."""
    calls = counted(monkeypatch, witness_native, "walk")
    model = load_model(write_game(str(tmp_path), "race", RACE))
    config = model.default_config()
    found = witness.find_verdict(model, config, OUTCOME + "b", 40_000, 5)
    assert calls == [1] and found.found and 0 < found.states < 40_000
    _, path, spent = witness._walked(model, config, OUTCOME + "b", 40_000, witness.walk_length(5), witness.SEED)
    assert path is not None and spent == found.states
