"""Review questions: `models/<game>/questions.yaml`, the questions a careful reading raises.

The file is written from the rule document alone; the model answers each question with a
reading, an assumption or a property (their `answers:`), or the question says itself why it is
out of scope. Loading checks the file's shape and that every question is about known clauses.
"""

from __future__ import annotations

import os

from checker.errors import Loc, RulecheckError, did_you_mean
from checker.lang.model import Clause, Question
from checker.lang.yamlsrc import YList, YMap, load_yaml, present

QUESTION_FILE = "questions.yaml"
KINDS = ("contradiction", "gap", "ambiguity", "undefined-term", "dead-rule", "order", "termination")
RAISED_BY = ("cold-reading", "faq", "designer", "modeller")
REQUIRED = ("id", "clauses", "kind", "raised_by", "question")
OPTIONAL = ("out_of_scope",)


def question_path(model_path: str) -> str:
    return os.path.join(os.path.dirname(model_path), QUESTION_FILE)


def load_questions(model_path: str, clauses: dict[str, Clause]) -> list[Question]:
    """The questions of the model's folder (none when the folder has no questions file)."""
    path = question_path(model_path)
    if not present(path):
        return []
    doc = load_yaml(path)
    if not isinstance(doc, YMap) or not isinstance(doc.get("questions"), YList):
        raise RulecheckError("a questions file holds one list, `questions:`", Loc(path, 1, 1), None, "write `questions:` followed by `- id: q-...` entries")
    for key in doc:
        if key != "questions":
            raise RulecheckError(f"unknown key `{key}` in a questions file", doc.key_loc(key), str(key), "a questions file has only `questions`")
    items = doc["questions"]
    out: list[Question] = []
    seen: dict[str, Loc] = {}
    for i, item in enumerate(items):
        question = _question(item, items.item_loc(i), clauses)
        if question.id in seen:
            raise RulecheckError(f"question `{question.id}` is listed twice (first at line {seen[question.id].line})", question.loc, question.id)
        seen[question.id] = question.loc
        out.append(question)
    return out


def _question(item: object, loc: Loc, clauses: dict[str, Clause]) -> Question:
    if not isinstance(item, YMap):
        raise RulecheckError("a question is a mapping with id, clauses, kind, raised_by and question", loc)
    for key in item:
        if key not in REQUIRED + OPTIONAL:
            raise RulecheckError(f"unknown key `{key}` in a question", item.key_loc(key), str(key), did_you_mean(str(key), REQUIRED + OPTIONAL))
    for key in REQUIRED:
        if key not in item:
            raise RulecheckError(f"a question is missing `{key}`", item.loc, None, f"a question has {', '.join(REQUIRED)}")
    qid = str(item["id"])
    cited = item["clauses"]
    cited = [cited] if isinstance(cited, str) else cited
    if not isinstance(cited, list) or not cited:
        raise RulecheckError(f"question `{qid}`: `clauses` lists the clause ids it is about", item.value_loc("clauses"), repr(cited)[:60])
    for cid in cited:
        if cid not in clauses:
            raise RulecheckError(f"question `{qid}` is about an unknown clause `{cid}`", item.value_loc("clauses"), str(cid), did_you_mean(str(cid), clauses) or "clause ids are those of clauses.yaml")
    for key, allowed in (("kind", KINDS), ("raised_by", RAISED_BY)):
        if item[key] not in allowed:
            raise RulecheckError(f"question `{qid}`: unknown {key} `{item[key]}`", item.value_loc(key), str(item[key]), did_you_mean(str(item[key]), allowed) or f"one of: {', '.join(allowed)}")
    reason = item.get("out_of_scope", "")
    if "out_of_scope" in item and (not isinstance(reason, str) or not reason.strip()):
        raise RulecheckError(f"question `{qid}`: `out_of_scope` gives the reason", item.value_loc("out_of_scope"), repr(reason))
    return Question(qid, tuple(str(c) for c in cited), str(item["kind"]), str(item["raised_by"]), str(item["question"]).strip(), str(reason).strip(), item.value_loc("id"))
