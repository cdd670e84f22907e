#!/usr/bin/env python3
"""Writes src/momo_gateway_client/schema.py: a TypedDict (or a type alias) for each schema under
`components.schemas` of docs/openapi.yaml.

    python clients/python/scripts/gen_types.py           # (re)write schema.py
    python clients/python/scripts/gen_types.py --check   # exit 1 when schema.py is stale

The mapping is deliberately small, for the JSON Schema this document uses:

- an object with `properties` is a TypedDict; its keys outside `required` are optional
  (a `_NameRequired` base holds the required ones, so it works on Python 3.10);
- a `oneOf`/`anyOf` of objects is one TypedDict whose required keys are those every
  alternative requires (CustomerCreate: `address` or `Address`);
- `const` and `enum` are `Literal`s, `type: [string, 'null']` is `str | None`, arrays are
  `list[...]`, any other union is a union of its members;
- an object inside another is a TypedDict named after its place (`V1TokenData`, an array's
  items `...Item`); `not`, `dependentSchemas`, patterns and lengths are not types and are
  left to the server, which checks them.

Needs PyYAML (the package's `gen` extra).
"""

from __future__ import annotations

import argparse
import difflib
import keyword
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGE_ROOT = HERE.parent
REPO_ROOT = PACKAGE_ROOT.parent.parent
DEFAULT_OPENAPI = REPO_ROOT / "docs" / "openapi.yaml"
DEFAULT_OUT = PACKAGE_ROOT / "src" / "momo_gateway_client" / "schema.py"
WIDTH = 99


# --- a small type model, rendered with line wrapping ---------------------------------------


@dataclass(frozen=True)
class Named:
    name: str


@dataclass(frozen=True)
class Lit:
    values: tuple[Any, ...]


@dataclass(frozen=True)
class ListOf:
    item: Type


@dataclass(frozen=True)
class Union:
    members: tuple[Type, ...]


Type = Named | Lit | ListOf | Union


def union(members: list[Type]) -> Type:
    """A union of `members`, flattened and deduplicated, `None` last."""
    flat: list[Type] = []
    for m in members:
        for x in m.members if isinstance(m, Union) else (m,):
            if x not in flat:
                flat.append(x)
    # Literals of one kind merge: Literal["a"] | Literal["b"] is Literal["a", "b"].
    lits = [x for x in flat if isinstance(x, Lit)]
    if len(lits) > 1:
        merged = Lit(tuple(v for lit in lits for v in lit.values))
        first = flat.index(lits[0])
        flat = [x for x in flat if not isinstance(x, Lit)]
        flat.insert(first, merged)
    none = Named("None")
    if none in flat:
        flat = [x for x in flat if x != none] + [none]
    if Named("Any") in flat:
        return Named("Any")
    return flat[0] if len(flat) == 1 else Union(tuple(flat))


def literal(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def render(t: Type) -> str:
    if isinstance(t, Named):
        return t.name
    if isinstance(t, Lit):
        return "Literal[" + ", ".join(literal(v) for v in t.values) + "]"
    if isinstance(t, ListOf):
        return f"list[{render(t.item)}]"
    return " | ".join(render(m) for m in t.members)


def render_wrapped(t: Type, indent: str) -> str:
    """`t` on one line, or its literals one value a line when that line would be too long."""
    one = render(t)
    if len(indent) + len(one) <= WIDTH:
        return one
    if isinstance(t, Lit):
        inner = indent + "    "
        return "Literal[\n" + "".join(f"{inner}{literal(v)},\n" for v in t.values) + f"{indent}]"
    if isinstance(t, Union):
        return " | ".join(render_wrapped(m, indent) for m in t.members)
    if isinstance(t, ListOf):
        return f"list[{render_wrapped(t.item, indent)}]"
    return one


# --- the schemas, read ---------------------------------------------------------------------


@dataclass
class Field:
    name: str
    type: Type
    required: bool
    description: str | None


@dataclass
class Klass:
    name: str
    description: str | None
    fields: list[Field]


@dataclass
class Alias:
    name: str
    description: str | None
    type: Type
    refs: set[str] = field(default_factory=set)


class Generator:
    def __init__(self, document: dict[str, Any]) -> None:
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        self.classes: dict[str, Klass] = {}
        self.aliases: dict[str, Alias] = {}

    def run(self) -> None:
        for name, schema in self.schemas.items():
            if self.object_like(schema):
                self.klass(name, schema)
            else:
                refs: set[str] = set()
                t = self.type_of(schema, name, refs)
                self.aliases[name] = Alias(name, description(schema), t, refs)

    # An object, or alternatives that are all objects: one TypedDict.
    def object_like(self, schema: Any) -> bool:
        if not isinstance(schema, dict) or "$ref" in schema:
            return False
        if "properties" in schema:
            return True
        alternatives: list[Any] = schema.get("oneOf") or schema.get("anyOf") or []
        return bool(alternatives) and all(
            isinstance(a, dict) and "properties" in a and "$ref" not in a for a in alternatives
        )

    def klass(self, name: str, schema: dict[str, Any]) -> str:
        if name in self.classes or (name in self.schemas and name in self.aliases):
            raise SystemExit(f"gen_types: two types named {name}")
        parts: list[dict[str, Any]] = (
            [schema] if "properties" in schema else schema.get("oneOf") or schema.get("anyOf") or []
        )
        required = set.intersection(*(set(p.get("required", [])) for p in parts))
        placeholder = Klass(name, description(schema), [])
        self.classes[name] = placeholder
        fields: dict[str, Field] = {}
        for part in parts:
            for prop, sub in part["properties"].items():
                if sub is False or prop in fields:
                    continue
                if not prop.isidentifier() or keyword.iskeyword(prop):
                    raise SystemExit(f"gen_types: {name}.{prop} is no Python identifier")
                t = self.type_of(sub, name + prop[0].upper() + prop[1:], set())
                fields[prop] = Field(prop, t, prop in required, description(sub))
        placeholder.fields = list(fields.values())
        return name

    def type_of(self, schema: Any, hint: str, refs: set[str]) -> Type:
        if schema is True or schema == {}:
            return Named("Any")
        ref = schema.get("$ref")
        if ref:
            target = ref.rsplit("/", 1)[-1]
            refs.add(target)
            return Named(target)
        if "allOf" in schema:
            parts = [p for p in schema["allOf"] if set(p) - {"not", "description"}]
            return self.type_of(parts[0], hint, refs) if parts else Named("Any")
        if self.object_like(schema) and "properties" not in schema:
            return Named(self.klass(hint, schema))
        alternatives = schema.get("oneOf") or schema.get("anyOf")
        if alternatives and "properties" not in schema and "type" not in schema:
            return union([self.type_of(a, f"{hint}{i + 1}", refs) for i, a in enumerate(alternatives)])
        if "const" in schema:
            return Lit((schema["const"],))
        if "enum" in schema:
            values = tuple(v for v in schema["enum"] if v is not None)
            members: list[Type] = [Lit(values)] if values else []
            if None in schema["enum"]:
                members.append(Named("None"))
            return union(members)
        kinds = schema.get("type")
        if kinds is None:
            return Named("Any")
        if isinstance(kinds, list):
            return union([self.scalar({**schema, "type": k}, hint, refs) for k in kinds])
        return self.scalar(schema, hint, refs)

    def scalar(self, schema: dict[str, Any], hint: str, refs: set[str]) -> Type:
        kind = schema["type"]
        if kind == "object":
            if "properties" in schema:
                return Named(self.klass(hint, schema))
            return Named("dict[str, Any]")
        if kind == "array":
            items = schema.get("items")
            return ListOf(self.type_of(items, hint + "Item", refs) if items else Named("Any"))
        simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
        if kind not in simple:
            raise SystemExit(f"gen_types: {hint}: unknown type {kind!r}")
        return Named(simple[kind])

    # --- the module, written ---------------------------------------------------------------

    def module(self) -> str:
        out = [HEADER]
        names = sorted([*self.classes, *self.aliases], key=str.lower)
        out.append("__all__ = [\n" + "".join(f'    "{n}",\n' for n in names) + "]\n")
        for k in self.classes.values():
            out.append(self.write_class(k))
        for a in self.ordered_aliases():
            out.append(self.write_alias(a))
        return "\n\n\n".join(s.rstrip("\n") for s in out) + "\n"

    def ordered_aliases(self) -> list[Alias]:
        """Aliases after the aliases they name, so that the module evaluates (classes come first)."""
        done: list[Alias] = []
        seen: set[str] = set()

        def visit(a: Alias, path: tuple[str, ...]) -> None:
            if a.name in seen:
                return
            if a.name in path:
                raise SystemExit(f"gen_types: aliases refer to each other: {' -> '.join(path)}")
            for r in sorted(a.refs):
                if r in self.aliases:
                    visit(self.aliases[r], (*path, a.name))
            seen.add(a.name)
            done.append(a)

        for a in self.aliases.values():
            visit(a, ())
        return done

    def write_class(self, k: Klass) -> str:
        required = [f for f in k.fields if f.required]
        optional = [f for f in k.fields if not f.required]
        lines: list[str] = []
        if required and optional:
            lines.append(f"class _{k.name}Required(TypedDict):")
            lines.extend(self.write_fields(required))
            lines.append("")
            lines.append("")
            lines.append(f"class {k.name}(_{k.name}Required, total=False):")
        elif optional:
            lines.append(f"class {k.name}(TypedDict, total=False):")
        else:
            lines.append(f"class {k.name}(TypedDict):")
        if k.description:
            lines.extend(docstring(k.description, "    "))
        body = self.write_fields(optional if required and optional else k.fields)
        if not body and not k.description:
            body = ["    pass"]
        lines.extend(body)
        return "\n".join(lines)

    def write_fields(self, fields: list[Field]) -> list[str]:
        lines: list[str] = []
        for f in fields:
            if f.description:
                lines.extend(comment(f.description, "    "))
            lines.append(f"    {f.name}: {render_wrapped(f.type, '    ')}")
        return lines

    def write_alias(self, a: Alias) -> str:
        lines = comment(a.description, "") if a.description else []
        lines.append(f"{a.name}: TypeAlias = {render_wrapped(a.type, '')}")
        return "\n".join(lines)


def description(schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return None
    d = schema.get("description")
    return " ".join(d.split()) if isinstance(d, str) and d.strip() else None


def docstring(text: str, indent: str) -> list[str]:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    wrapped = textwrap.wrap(text, WIDTH - len(indent) - 3)
    if len(wrapped) == 1 and len(indent) + len(wrapped[0]) + 6 <= WIDTH:
        return [f'{indent}"""{wrapped[0]}"""']
    return [f'{indent}"""'] + [f"{indent}{line}" for line in wrapped] + [f'{indent}"""']


def comment(text: str, indent: str) -> list[str]:
    return [f"{indent}#: {line}" for line in textwrap.wrap(text, WIDTH - len(indent) - 3)]


HEADER = '''\
# Generated by clients/python/scripts/gen_types.py from docs/openapi.yaml (components.schemas).
# Do not edit by hand: change docs/openapi.yaml, then run
#     python clients/python/scripts/gen_types.py
"""The wire types of momo-gateway's API, one per schema of docs/openapi.yaml.

Each object is a TypedDict with the wire's own key names (camelCase in v1, snake_case in v2);
keys the document does not require are optional. Patterns and lengths are the server's to check.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, TypedDict
'''


def generate(openapi: Path) -> tuple[str, int]:
    """The module's text, and how many types it holds."""
    import yaml  # the `gen` extra; imported here so that --help works without it

    with openapi.open(encoding="utf-8") as f:
        document = yaml.safe_load(f)
    gen = Generator(document)
    gen.run()
    return gen.module(), len(gen.classes) + len(gen.aliases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openapi", type=Path, default=DEFAULT_OPENAPI, help="the OpenAPI document")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the module to write")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when the module is not what it would be"
    )
    args = parser.parse_args(argv)
    try:
        text, count = generate(args.openapi)
    except ModuleNotFoundError as e:
        print(f"gen_types: {e.name} is missing: pip install 'PyYAML>=6' (the package's gen extra)", file=sys.stderr)
        return 2
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current == text:
            print(f"{display(args.out)} is up to date with {display(args.openapi)}")
            return 0
        diff = list(
            difflib.unified_diff(current.splitlines(), text.splitlines(), "checked in", "generated", lineterm="", n=1)
        )
        print("\n".join(diff[:60] + (["..."] if len(diff) > 60 else [])), file=sys.stderr)
        print(
            f"{display(args.out)} is stale: it is not what {display(args.openapi)} generates.\n"
            f"Run the generator and commit what it writes:\n    python {display(Path(__file__))}",
            file=sys.stderr,
        )
        return 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {display(args.out)} ({count} types)")
    return 0


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
