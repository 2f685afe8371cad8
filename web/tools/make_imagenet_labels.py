#!/usr/bin/python3
"""Writes web/imagenet-labels.json: the 1,000 ImageNet class names, index i -> name i.

The page shows them in a classifier's top 5 when an output has exactly 1,000 classes. The names
come from torchvision (BSD-3-Clause, Copyright Facebook, Inc. and its affiliates), as packaged by
Debian (python3-torchvision): torchvision.models._meta._IMAGENET_CATEGORIES. The module is read as
text and the list evaluated with ast.literal_eval, so torch need not import. Not run in CI: the
output is committed; rerun it (/usr/bin/python3 web/tools/make_imagenet_labels.py) only to
regenerate it.
"""
import ast
import json
import pathlib
import sys

SRC = pathlib.Path('/usr/lib/python3/dist-packages/torchvision/models/_meta.py')
COPYRIGHT = pathlib.Path('/usr/share/doc/python3-torchvision/copyright')
OUT = pathlib.Path(__file__).resolve().parent.parent / 'imagenet-labels.json'
LICENSE_OUT = OUT.with_name('LICENSE-torchvision-BSD-3-Clause.txt')


def bsd3_text():
    # Debian's machine-readable copyright file: the 'License: BSD-3-Clause' paragraph holds the
    # text (indented by one space, '.' for an empty line) that the labels' NOTICE must carry.
    para = COPYRIGHT.read_text(encoding='utf-8').split('\n\nLicense: BSD-3-Clause\n', 1)[1].split('\n\n', 1)[0]
    lines = [l[1:] if l.startswith(' ') else l for l in para.splitlines()]
    return '\n'.join('' if l == '.' else l for l in lines).rstrip() + '\n'


def main():
    tree = ast.parse(SRC.read_text(encoding='utf-8'))
    names = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', None) == '_IMAGENET_CATEGORIES' for t in node.targets):
            names = ast.literal_eval(node.value)
    if not isinstance(names, list) or len(names) != 1000 or not all(isinstance(n, str) and n for n in names):
        sys.exit(f'{SRC}: _IMAGENET_CATEGORIES is not a list of 1000 names')
    doc = {
        'source': 'torchvision.models._meta._IMAGENET_CATEGORIES (torchvision, BSD-3-Clause, Copyright Facebook, Inc. and its affiliates)',
        'labels': names,
    }
    # One name per line: small, and diffs of a regenerated file stay readable.
    text = '{\n "source": ' + json.dumps(doc['source']) + ',\n "labels": [\n' + ',\n'.join('  ' + json.dumps(n, ensure_ascii=False) for n in names) + '\n ]\n}\n'
    OUT.write_text(text, encoding='utf-8')
    LICENSE_OUT.write_text('The ImageNet class names in imagenet-labels.json come from torchvision\n'
                           '(torchvision/models/_meta.py), licensed as follows.\n\n'
                           'Copyright (c) Soumith Chintala 2016, Facebook, Inc. and its affiliates.\n'
                           'All rights reserved.\n\n' + bsd3_text(), encoding='utf-8')
    print(f'wrote {OUT} ({len(names)} labels, {len(text.encode())} bytes)')


if __name__ == '__main__':
    main()
