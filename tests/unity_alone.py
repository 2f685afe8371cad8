#!/usr/bin/env python3
"""Which test files must be compiled on their own in a unity build (tests/CMakeLists.txt).

A unity build compiles several test files as one translation unit, so two files that each define a
file-local helper of the same name (in an anonymous namespace, `static`, a struct, a `using`
alias, a constant) would clash: a redefinition error at best, at worst a silent overload where one
file's call picks the other file's function. This script lists, for one test binary, the files
that define a file-scope name another file of the same binary also defines (all but the first of
each such group, by name order), so that every file left in the unity batches has only names of
its own.

usage: unity_alone.py FILE.cpp...   prints the files to compile alone, one per line

The scan is lexical (comments, strings and preprocessor lines removed; braces tracked; only
names declared directly at namespace scope count, and macro names) and errs on the side of listing
a file: a name it wrongly reports only costs that file its unity batch.
"""
import re
import sys

_FLOW = {"if", "for", "while", "switch", "return", "sizeof", "catch", "do", "else"}


def _strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'R"(\w*)\((.*?)\)\1"', '""', text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    # preprocessor lines, continuation lines included
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
    return text


def _name_of(statement, opens_body):
    s = re.sub(r"\s+", " ", statement).strip()
    if not s or re.match(r"^(TEST|TEST_F|TEST_P|TYPED_TEST|INSTANTIATE_TEST_SUITE_P|namespace|extern|template ?<[^>]*> ?$)", s):
        return None
    s = re.sub(r"^template ?<.*?> ?", "", s)
    m = re.match(r"^using (\w+) ?=", s)
    if m:
        return m.group(1)
    if s.startswith("using "):
        return None
    m = re.match(r"^(?:typedef .*?)(\w+) ?$", s)
    if m and s.startswith("typedef"):
        return m.group(1)
    m = re.search(r"\b(?:struct|class|union|enum(?: class| struct)?) (\w+)", s)
    if m and "(" not in s[: m.start()] and "=" not in s[: m.start()]:
        return m.group(1)
    head = s.split("=", 1)[0]
    if "(" in head:
        # a function (declaration or definition): the word before the first parenthesis
        m = re.match(r"^[\w:<>,\s\*&\[\]]*?(~?\w+) ?\(", head)
        if m and m.group(1) not in _FLOW:
            return m.group(1)
        return None
    m = re.search(r"(\w+) ?(\[[^\]]*\])* ?$", head)
    return m.group(1) if m else None


def file_scope_names(path):
    raw = open(path, encoding="utf-8").read()
    # macros too: one file's #define would reach the files after it in a batch
    names = set(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", raw, flags=re.M))
    text = _strip(raw)
    stack = []  # 'ns' for namespace braces, 'x' for anything else
    start = 0
    for m in re.finditer(r"[{};]", text):
        c = m.group()
        seg = text[start:m.start()]
        at_scope = all(k == "ns" for k in stack)
        if c == "{":
            if re.search(r"\bnamespace\b[\w\s:]*$", seg):
                stack.append("ns")
            else:
                if at_scope:
                    n = _name_of(seg, True)
                    if n:
                        names.add(n)
                stack.append("x")
        elif c == "}":
            if stack:
                stack.pop()
        elif at_scope:
            n = _name_of(seg, False)
            if n:
                names.add(n)
        start = m.end()
    return names


def alone(files):
    seen = {}
    out = []
    for f in sorted(files):
        names = file_scope_names(f)
        if any(n in seen for n in names):
            out.append(f)
        else:
            for n in names:
                seen[n] = f
    return out


if __name__ == "__main__":
    for f in alone(sys.argv[1:]):
        print(f)
