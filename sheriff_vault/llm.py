"""The OpenAI Responses API: the only module that imports `openai`.

Any server speaking the API subset works (llm.base_url: Ollama, vLLM, llama.cpp's server). Every
failure becomes one ExtractorError with a hint, so callers never see an openai exception.
"""
from __future__ import annotations

import json
import os
from typing import Any, Protocol

import openai

from sheriff_vault.config import Config
from sheriff_vault.errors import ExtractorError
from sheriff_vault.text import truncate


class Vault(Protocol):
    """What this module needs of a vault: its settings (llm: in vault.yaml)."""

    @property
    def config(self) -> Config: ...

LOCAL_KEY = "sk-no-key-needed"


SLEEP, AGENT = "sleep", "agent"  # who calls: the advice in an error differs


def client(vault: Vault, purpose: str = SLEEP) -> openai.OpenAI:
    """An OpenAI client for the vault's llm settings; a local server (llm.base_url) needs no key."""
    s = vault.config.llm
    key = os.environ.get(s.api_key_env, "").strip()
    if not key and not s.base_url:
        fallback = ", or use --extractor offline" if purpose == SLEEP else ""
        raise ExtractorError(f"no API key: the environment variable {s.api_key_env} is not set",
                             hint=f"set {s.api_key_env}, or point llm.base_url in vault.yaml at a local server "
                                  f"(Ollama, vLLM, llama.cpp){fallback}")
    return openai.OpenAI(api_key=key or LOCAL_KEY, base_url=s.base_url or None, timeout=s.timeout_seconds,
                         max_retries=1)


def respond(vault: Vault, *, instructions: str, input: Any, tools: list[dict] | None = None,
            previous_response_id: str | None = None, effort: str | None = None) -> Any:
    """One agent step: a Responses API call with the vault's model and the agent's reasoning effort."""
    kwargs: dict[str, Any] = {"instructions": instructions, "input": input,
                              "reasoning": {"effort": effort or vault.config.llm.agent_reasoning_effort}}
    if tools:
        kwargs["tools"] = tools
    if previous_response_id:
        kwargs["previous_response_id"] = previous_response_id
    response = call(vault, kwargs, AGENT)
    if getattr(response, "status", None) == "failed":
        raise ExtractorError(f"the model run failed: {problem(response)}", hint=hint(vault, AGENT))
    return response


def call(vault: Vault, kwargs: dict[str, Any], purpose: str = SLEEP) -> Any:
    s = vault.config.llm
    where = s.base_url or "the OpenAI API"
    api = client(vault, purpose)
    try:
        return api.responses.create(model=s.model, **kwargs)
    except openai.APITimeoutError:
        raise ExtractorError(f"{where} did not answer within {s.timeout_seconds:g}s",
                             hint="raise llm.timeout_seconds in vault.yaml, " + hint(vault, purpose)) from None
    except openai.APIConnectionError as exc:
        cause = exc.__cause__ or exc
        raise ExtractorError(f"cannot reach {where}: {truncate(str(cause), 200)}", hint=hint(vault, purpose)) from None
    except openai.APIStatusError as exc:
        err = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
        said = err.get("message") if isinstance(err, dict) and err.get("message") else exc.message
        advice = f"check {s.api_key_env}" if exc.status_code in (401, 403) else hint(vault, purpose)
        raise ExtractorError(f"{where} answered HTTP {exc.status_code}: {truncate(str(said), 200)}",
                             hint=advice) from None
    except (openai.OpenAIError, ValueError) as exc:
        raise ExtractorError(f"bad reply from {where}: {truncate(str(exc), 200)}", hint=hint(vault, purpose)) from None
    finally:
        api.close()


def hint(vault: Vault, purpose: str = SLEEP) -> str:
    fallback = ", or use --extractor offline" if purpose == SLEEP else ""
    if vault.config.llm.base_url:
        return f"check llm.base_url in vault.yaml{fallback}"
    return f"try again later{fallback}"


def problem(response: Any) -> str:
    """Why a response is not a usable answer: a refusal, an error, or why it stopped short."""
    for item in getattr(response, "output", None) or []:
        for part in getattr(item, "content", None) or []:
            if getattr(part, "type", "") == "refusal":
                return f"refused: {part.refusal or 'no reason given'}"
    err, details = getattr(response, "error", None), getattr(response, "incomplete_details", None)
    return str(getattr(err, "message", "") or getattr(details, "reason", "") or "")


def output_text(response: Any) -> str:
    """All output_text of the reply's messages, joined."""
    return getattr(response, "output_text", "") or ""


def function_calls(response: Any) -> list[dict[str, Any]]:
    """The tool calls in a reply; arguments that are not a JSON object come back as {} with an error,
    so the agent loop can tell the model instead of crashing."""
    calls = []
    for item in getattr(response, "output", None) or []:
        if getattr(item, "type", "") != "function_call":
            continue
        call: dict[str, Any] = {"name": item.name, "call_id": item.call_id, "arguments": {}}
        try:
            args = json.loads(item.arguments or "{}")
            call.update({"arguments": args} if isinstance(args, dict) else {"error": "arguments must be a JSON object"})
        except ValueError as exc:
            call["error"] = f"arguments are not JSON: {exc}"
        calls.append(call)
    return calls
