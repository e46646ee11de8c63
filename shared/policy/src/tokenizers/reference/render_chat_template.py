"""Renders a chat template as transformers' apply_chat_template does (reference for the tests).

Reads JSON from stdin: {"template", "messages", "tools", "add_generation_prompt", "variables"}
and writes the rendered text to stdout. The environment is transformers'
(utils/chat_template_utils.py): ImmutableSandboxedEnvironment with trim_blocks,
lstrip_blocks and loopcontrols, a json.dumps tojson filter, raise_exception and
strftime_now; the template gets messages, tools, documents, add_generation_prompt
and the special tokens plus extra kwargs.
"""

import json
import sys
from datetime import datetime

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


def main():
    request = json.load(sys.stdin)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    template = env.from_string(request["template"])
    text = template.render(
        messages=request["messages"],
        tools=request.get("tools"),
        documents=None,
        add_generation_prompt=request.get("add_generation_prompt", False),
        **request.get("variables", {}),
    )
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
