"""What checking a finding's proposed wording showed (`pipeline.fix_check` runs the check).

The type sits with the other results so that the errata pages can print a check without
importing the stage that runs it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FixCheck:
    """What running a finding's proposed wording showed, in the words the page prints."""

    finding: str
    fix: str  # NAME=OPTION
    combinations: int  # combinations the fix was checked in
    still_failing: tuple[str, ...] = ()  # the finding's properties that still fail under it ("`p` on `model` [label]")
    broken: tuple[str, ...] = ()  # properties that hold without the fix and fail with it
    examples: int = 0  # scenarios played under the fix
    failed_examples: tuple[str, ...] = ()  # scenarios that play without the fix and not with it
    missing: str = ""  # why it could not be checked ("" when it was)

    @property
    def passed(self) -> bool:
        return not (self.missing or self.still_failing or self.broken or self.failed_examples)

    def words(self) -> str:
        """One sentence for the page: what the check of the wording showed (once it ran)."""
        if self.passed:
            return (f"checked as `{self.fix}` in {self.combinations} combination(s): the finding's properties hold, no property that holds "
                    f"without it fails, and the {self.examples} example(s) of the suite still play")
        parts = []
        if self.still_failing:
            parts.append("the finding's " + ", ".join(self.still_failing) + " still fail(s)")
        if self.broken:
            parts.append(", ".join(self.broken) + " hold(s) without it and fail(s) with it")
        if self.failed_examples:
            parts.append("the example(s) " + ", ".join(f"`{s}`" for s in self.failed_examples) + " no longer play")
        return f"checked as `{self.fix}`: " + "; ".join(parts)
