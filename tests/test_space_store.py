"""The check matrix deciding its properties over a space the Readings analysis explored in the
same run (`checker.engines.native.space_store`) gets what exploring gets: the same states,
parents, layers, moves, counts, findings and paths, on random models and bundled ones; and a
space is used only inside `sharing`, once, and only within the budget asked for."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from checker.analysis.impact import Settings, impact_of, keep_space  # noqa: E402
from checker.engines.explicit import Budget  # noqa: E402
from checker.engines.native import engine, space_store  # noqa: E402
from checker.engines.statespace import explore_space  # noqa: E402
from checker.lang.compile import CompiledModel  # noqa: E402
from checker.lang.property_kinds import KINDS  # noqa: E402
from tests.conformance.backends import finding_key  # noqa: E402
from tests.conformance.generated import BUNDLED, EXAMPLES, HERE, generated_configs, models  # noqa: E402
from tests.symbolic_support import bound_props  # noqa: E402


def _explored(model, config, props, budget: Budget):
    need_graph = any(KINDS[p.kind].needs_edges for p in props)
    return engine.explore(CompiledModel(model, config, lazy=True), props, budget, need_graph=need_graph)


def _differences(first, second, props) -> list[str]:
    (exp_a, found_a), (exp_b, found_b) = first, second
    out = [
        name for name in ("layer_ends", "transitions", "complete", "stopped_by", "fired") if getattr(exp_a, name) != getattr(exp_b, name)
    ]
    if exp_a.rows.tolist() != exp_b.rows.tolist():
        out.append("states")
    if exp_a.parent.tolist() != exp_b.parent.tolist():
        out.append("parents")
    expanded = exp_a.graph.starts.shape[0] - 1  # the terminal flags of the states expanded (the rest are never written)
    if (
        exp_a.graph.starts.tolist() != exp_b.graph.starts.tolist()
        or exp_a.graph.edges.tolist() != exp_b.graph.edges.tolist()
        or exp_a.term[:expanded].tolist() != exp_b.term[:expanded].tolist()
    ):
        out.append("moves")
    decided_a, decided_b = engine.decide(exp_a, props, found_a), engine.decide(exp_b, props, found_b)
    out += [
        f"{p.id}: {finding_key(decided_a[p.id])} against {finding_key(decided_b[p.id])}"
        for p in props
        if finding_key(decided_a[p.id]) != finding_key(decided_b[p.id])
    ]
    return out


def compare_stored(model, config, props, budget: Budget, monkeypatch) -> list[str] | None:
    """Where deciding over the stored space differs from exploring (empty: nowhere); None when
    the space is not complete within the budget (nothing is stored then) or the model defers
    to the Python engine."""
    used: list[object] = []
    original = engine._over_stored

    def counting(*args):
        result = original(*args)
        used.append(result)
        return result

    monkeypatch.setattr(engine, "_over_stored", counting)
    with space_store.sharing():
        try:
            explored = _explored(model, config, props, budget)
        except engine.NativeDeferred:
            return None
        space = explore_space(CompiledModel(model, config, lazy=True), budget.max_states)
        keep_space(space)
        if not space.complete:
            assert not os.listdir(os.environ[space_store.ENV]), "an incomplete space was kept"
            return None
        assert len(os.listdir(os.environ[space_store.ENV])) == 1
        checked = _explored(model, config, props, budget)
        assert not os.listdir(os.environ[space_store.ENV]), "a stored space is read once"
    assert len(used) == 1 and used[0] is not None, "the stored space was not used"
    return _differences(explored, checked, props)


@settings(
    max_examples=2 * EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(models())
def test_a_stored_space_decides_as_exploring_on_random_models(case):
    import _pytest.monkeypatch

    with _pytest.monkeypatch.MonkeyPatch.context() as monkeypatch:
        for model, config, props, _ in generated_configs(case, "\n- {id: ends-reachable, kind: can-end}"):
            problems = compare_stored(model, config, props, Budget(20_000, 120.0), monkeypatch)
            assert not problems, "\n".join(problems or []) + "\n\n" + "\n".join(case)


SMALL = [p for p in BUNDLED if os.path.basename(p) in ("two-player.yaml", "junior.yaml", "handicap.yaml", "three-player.yaml")]


@pytest.mark.parametrize("path", SMALL, ids=[os.path.relpath(p, HERE) for p in SMALL])
def test_a_stored_space_decides_as_exploring_on_bundled_models(path, monkeypatch):
    """Bundled models with `after`, deadlock, determinism, leads-to and termination properties,
    default configuration, whole spaces."""
    model, props = bound_props(path)
    problems = compare_stored(model, model.default_config(), props, Budget(200_000, 600.0), monkeypatch)
    if problems is None:
        pytest.skip("not complete within 200,000 states")
    assert problems == []


def test_a_space_past_the_budget_is_explored_instead(monkeypatch):
    """The stored space has more states than the run may explore: the loop explores and stops
    at the budget, as it does with nothing stored."""
    model, props = bound_props(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    config = model.default_config()
    with space_store.sharing():
        space = explore_space(CompiledModel(model, config, lazy=True), 200_000)
        keep_space(space)
        assert space.complete
        budget = Budget(space.size - 1, 600.0)
        monkeypatch.setattr(engine, "_over_stored", lambda *args: pytest.fail("a space past the budget was used"))
        past = _explored(model, config, props, budget)
    assert not past[0].complete and past[0].stopped_by.startswith("state budget")
    assert _differences(_explored(model, config, props, budget), past, props) == []


def test_nothing_is_kept_outside_a_run(monkeypatch):
    model, _ = bound_props(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    monkeypatch.delenv(space_store.ENV, raising=False)
    saved: list[object] = []
    monkeypatch.setattr(space_store.np, "savez", lambda *args, **kwargs: saved.append(args))
    space = explore_space(CompiledModel(model, model.default_config(), lazy=True), 200_000)
    keep_space(space)
    assert space.complete and saved == []
    with space_store.sharing():
        folder = os.environ[space_store.ENV]
        assert os.path.isdir(folder)
    assert not os.path.exists(folder) and space_store.ENV not in os.environ


def test_the_impact_analysis_keeps_what_it_explores():
    """`impact_of` (the Readings analysis's exploration of each option) is what fills the
    store; the Readings re-checks' larger games, which the matrix never explores, are not kept."""
    model, _ = bound_props(os.path.join(HERE, "models", "titlebelt", "two-player.yaml"))
    with space_store.sharing():
        assert explore_space(CompiledModel(model, model.default_config(), lazy=True), 200_000).complete
        assert not os.listdir(os.environ[space_store.ENV])
        impact_of(model, model.default_config(), Settings())
        assert len(os.listdir(os.environ[space_store.ENV])) == 1
        assert space_store.take(CompiledModel(model, model.default_config(), lazy=True), 200_000) is not None
        assert not os.listdir(os.environ[space_store.ENV])


def test_a_killed_checks_folder_is_removed_by_the_next(tmp_path, monkeypatch):
    """A check killed before it could remove its folder leaves it behind: the next check
    removes it (no process of its id is alive); a live process's folder is left alone."""
    import subprocess
    import sys
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    dead = tmp_path / f"{space_store.PREFIX}{finished.stdout.strip()}-abc"
    live = tmp_path / f"{space_store.PREFIX}{os.getpid()}-def"
    for folder in (dead, live):
        folder.mkdir()
        (folder / "space.npz").write_bytes(b"0" * 16)
    with space_store.sharing():
        assert os.path.dirname(os.environ[space_store.ENV]) == str(tmp_path)
    assert not dead.exists() and live.exists()
