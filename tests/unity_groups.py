#!/usr/bin/env python3
"""The unity batches of one test binary (tests/CMakeLists.txt).

A unity build compiles several test files as one translation unit, so two files that each define a
file-local helper of the same name (in an anonymous namespace, `static`, a struct, a `using`
alias, a constant) would clash: a redefinition error at best, at worst a silent overload where one
file's call picks the other file's function. This script puts two files that define the same
file-scope name in different batches, so that every batch holds each name once.

usage: unity_groups.py BATCH FILE.cpp...   prints "BATCH_NUMBER<TAB>FILE" lines

The scan is lexical (comments, strings and preprocessor lines removed; braces tracked; only
names declared directly at namespace scope count, and macro names) and errs on the side of
separating files: a name it wrongly reports only moves a file to another batch.
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


def groups(files, batch):
    """Greedy colouring: each file joins the first batch (of at most `batch` files) holding none of
    its names. The first file given opens batch 0 (tests/CMakeLists.txt passes the shared
    test_util.cpp first, so that it is in batch 0 of every binary)."""
    out = []  # [(names, files)]
    for f in files:
        names = file_scope_names(f)
        for g in out:
            if len(g[1]) < batch and not (names & g[0]):
                g[0].update(names)
                g[1].append(f)
                break
        else:
            out.append((set(names), [f]))
    return [g[1] for g in out]


if __name__ == "__main__":
    batch = int(sys.argv[1])
    for i, g in enumerate(groups(sys.argv[2:], batch)):
        for f in g:
            print(f"{i}\t{f}")
