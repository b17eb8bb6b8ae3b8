"""What `ctx.ask` may ask (a flat model) and how an answer is checked, on any surface."""

from __future__ import annotations

import asyncio
import enum
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field, field_validator

from eve_build.errors import EveBuildError
from eve_build.sdk.interaction import Question, ask_person, interacting
from eve_build.sdk.questions import check_answer, find_schema_problems, flat_schema, parse_answers


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Booking(BaseModel):
    name: str = Field(description="who books")
    seats: int = 2
    price: float | None = None
    window: bool = False
    color: Color = Color.RED
    meal: Literal["veg", "fish"] = "veg"


class Inner(BaseModel):
    x: int


class Nested(BaseModel):
    inner: Inner


class Listy(BaseModel):
    tags: list[str]


class Either(BaseModel):
    value: int | str


def test_a_flat_model_can_be_asked_and_keeps_defaults_descriptions_and_choices() -> None:
    assert find_schema_problems(Booking) == []
    schema = flat_schema(Booking)
    assert schema["required"] == ["name"]
    props = schema["properties"]
    assert props["name"] == {"type": "string", "title": "Name", "description": "who books"}
    assert props["seats"] == {"type": "integer", "title": "Seats", "default": 2}
    assert props["price"]["type"] == "number" and props["price"]["default"] is None
    assert props["color"] == {"type": "string", "title": "Color", "enum": ["red", "blue"],
                              "default": "red"}
    assert props["meal"]["enum"] == ["veg", "fish"]
    assert "$defs" not in schema and all("anyOf" not in p for p in props.values())


@pytest.mark.parametrize(("model", "reason"), [
    (Nested, "the field `inner` of `Nested` is a nested model (`Inner`)"),
    (Listy, "the field `tags` of `Listy` is `list[str]` without choices"),
    (Either, "the field `value` of `Either` is a union"),
    (dict, "`schema` must be a pydantic model class, not `dict`"),
])
def test_a_schema_that_is_not_flat_is_refused_with_the_field_named(model: Any,
                                                                   reason: str) -> None:
    (problem,) = find_schema_problems(model)
    assert problem.startswith(reason)


def test_answers_are_checked_from_the_json_schema_alone() -> None:
    schema = flat_schema(Booking)
    values, errors = check_answer(schema, {"name": "Ada", "seats": "3", "color": "blue"})
    assert errors == []
    assert values == {"name": "Ada", "seats": 3, "price": None, "window": False,
                      "color": "blue", "meal": "veg"}
    _, errors = check_answer(schema, {"seats": "many", "color": "green", "extra": 1})
    assert {e["field"] for e in errors} == {"name", "seats", "color", "extra"}


def test_answer_pairs_are_field_equals_value() -> None:
    assert parse_answers(["name=Ada", "note=a=b", "x"]) == ({"name": "Ada", "note": "a=b"},
                                                            ["x"])


def test_ask_refuses_a_bad_schema_at_call_time() -> None:
    async def never(question: Question) -> dict[str, Any]:
        raise AssertionError("asked")

    with interacting(ask=never), pytest.raises(EveBuildError, match="nested model"):
        asyncio.run(ask_person("?", Nested, source="book"))


class Even(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def even(cls, value: int) -> int:
        if value % 2:
            raise ValueError("must be even")
        return value


def test_an_answer_the_model_refuses_is_asked_again_with_the_errors() -> None:
    asked: list[Question] = []

    async def answer(question: Question) -> dict[str, Any]:
        asked.append(question)
        return {"n": 3 if len(asked) == 1 else 4}

    with interacting(ask=answer):
        got = asyncio.run(ask_person("a number?", Even, source="t"))
    assert got == Even(n=4)
    assert asked[0].errors == () and "must be even" in asked[1].errors[0]["message"]


def test_a_question_may_offer_choices_several_ways() -> None:
    """Single choices (Literal, titled `oneOf`, legacy `enumNames`) and multiple choices
    (`list[Literal]`, titled `items.anyOf`): asked as MCP elicitation's schemas know them,
    answers checked against the choices, `a,b` taken for a list."""

    from pydantic import BaseModel, Field

    from eve_build.sdk.questions import check_answer, find_schema_problems, flat_schema

    class Choices(BaseModel):
        single: Literal["a", "b"]
        titled: str = Field(json_schema_extra={"oneOf": [
            {"const": "v1", "title": "First"}, {"const": "v2", "title": "Second"}]})
        several: list[Literal["a", "b", "c"]]
        titled_several: list[str] = Field(json_schema_extra={"items": {"anyOf": [
            {"const": "v1", "title": "First"}, {"const": "v2", "title": "Second"}]}})

    assert find_schema_problems(Choices) == []
    schema = flat_schema(Choices)
    assert schema["properties"]["several"]["items"] == {"type": "string",
                                                        "enum": ["a", "b", "c"]}
    assert schema["properties"]["titled"]["oneOf"][0] == {"const": "v1", "title": "First"}
    good = {"single": "a", "titled": "v2", "several": "a,c", "titled_several": ["v1"]}
    assert check_answer(schema, good) == ({**good, "several": ["a", "c"]}, [])
    _, errors = check_answer(schema, {**good, "titled": "v9", "several": ["z"]})
    assert [e["field"] for e in errors] == ["titled", "several.0"]
