"""`vault mcp` as a real subprocess, driven by the real `mcp` client (stdio_client + ClientSession)."""
from __future__ import annotations

import asyncio
import datetime as dt
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NOW, git, wait_for
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from sheriff_vault.daemon import rpc
from sheriff_vault.store.edits import create_topic

ROOT = Path(__file__).resolve().parent.parent
ENV = {"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def server_params(vault_root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "sheriff_vault", "mcp", "--vault", str(vault_root)],
                                 env=ENV | {"HOME": os.environ["HOME"]}, cwd=str(vault_root.parent))


def run_session(vault_root: Path, body) -> object:
    async def main():
        async with stdio_client(server_params(vault_root)) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)

    return asyncio.run(main())


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content)


@pytest.fixture
def seeded(hash_vault):
    create_topic(hash_vault, "Staging deploy", now=NOW, facts=["We deploy staging with make stage-up from main."])
    return hash_vault


def test_tools_recall_upsert_resource_and_prompt(seeded):
    async def body(s: ClientSession):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        first = await s.call_tool("recall", {"query": "how do we deploy staging?"})
        upsert = await s.call_tool("topic_upsert", {"name": "Billing", "facts": ["The invoice cutoff is the 25th."]})
        second = await s.call_tool("recall", {"query": "when is the invoice cutoff?"})
        resources = [str(r.uri) for r in (await s.list_resources()).resources]
        templates = [t.uri_template for t in (await s.list_resource_templates()).resource_templates]
        topic = await s.read_resource("vault://topic/billing")
        wake = await s.read_resource("vault://wake")
        prompt = await s.get_prompt("resume", {})
        listed = await s.call_tool("topic_list", {})
        return tools, first, upsert, second, resources, templates, topic, wake, prompt, listed

    tools, first, upsert, second, resources, templates, topic, wake, prompt, listed = run_session(seeded.root, body)
    assert {"recall", "topic_get", "topic_list", "topic_upsert", "topic_link", "note", "sleep", "wake", "history",
            "diff", "time", "skills_search", "skills_run"} <= set(tools)
    assert "verify" in tools["recall"].description and tools["recall"].input_schema["required"] == ["query"]
    assert not first.is_error and "make stage-up" in text_of(first)
    assert not upsert.is_error and upsert.structured_content["path"] == "topics/billing.md"
    assert git(seeded.root, "log", "-1", "--format=%s").strip() == "topic: new Billing"
    assert not second.is_error and "invoice cutoff is the 25th" in text_of(second)
    assert "vault://topic/billing" in resources and "vault://topic/staging-deploy" in resources
    assert "vault://wake" in resources and "vault://topic/{slug}" in templates
    assert topic.contents[0].mime_type == "text/markdown"
    assert "The invoice cutoff is the 25th." in topic.contents[0].text
    assert "# Wake context" in wake.contents[0].text
    assert "# Wake context" in prompt.messages[0].content.text
    assert [t["slug"] for t in listed.structured_content["topics"]] == ["billing", "staging-deploy"]


def test_bad_arguments_are_error_results_and_the_server_survives(seeded):
    async def body(s: ClientSession):
        out = {
            "empty query": await s.call_tool("recall", {"query": ""}),
            "wrong type": await s.call_tool("recall", {"query": 42, "budget": "lots"}),
            "missing": await s.call_tool("topic_get", {}),
            "no topic": await s.call_tool("topic_get", {"ref": "no-such-topic"}),
            "bad phrase": await s.call_tool("time", {"phrase": "purple elephants"}),
            "bad link type": await s.call_tool("topic_link", {"src": "staging-deploy", "dst": "x", "type": "OWNS"}),
            "nameless upsert": await s.call_tool("topic_upsert", {}),
            "unknown tool": await s.call_tool("no_such_tool", {}),
        }
        try:
            await s.read_resource("vault://topic/no-such-topic")
            missing_resource = None
        except MCPError as exc:
            missing_resource = str(exc)
        after = await s.call_tool("recall", {"query": "deploy staging"})
        return out, missing_resource, after

    out, missing_resource, after = run_session(seeded.root, body)
    for label, result in out.items():
        assert result.is_error, label
    assert "no topic matches 'no-such-topic'" in text_of(out["no topic"])
    assert "needs name" in text_of(out["nameless upsert"])
    assert missing_resource and "no-such-topic" in missing_resource
    assert not after.is_error and "make stage-up" in text_of(after)


def test_note_then_sleep_and_time_over_mcp(hash_vault):
    async def body(s: ClientSession):
        for i in range(3):
            await s.call_tool("note", {"role": "user", "text": f"Remember: the staging database is db-{i}."})
        noted = await s.call_tool("note", {"role": "assistant", "text": "Noted.", "turn_id": "a1"})
        again = await s.call_tool("note", {"role": "assistant", "text": "Noted.", "turn_id": "a1"})
        window = await s.call_tool("time", {"phrase": "yesterday"})
        slept = await s.call_tool("sleep", {"dry_run": True})
        return noted, again, window, slept

    noted, again, window, slept = run_session(hash_vault.root, body)
    assert noted.structured_content["added"][0]["id"] == "a1"
    assert again.structured_content["added"] == [] and "already" in again.structured_content["note"]
    assert window.structured_content["start"] and window.structured_content["end"]
    assert not slept.is_error and slept.structured_content["dry_run"] is True
    assert len(hash_vault.buffer_path.read_text().splitlines()) == 4


def test_the_sleep_tool_says_what_it_skipped_in_a_transcript(hash_vault):
    transcript = ROOT / "tests" / "fixtures" / "transcripts" / "claude_metadata_first.jsonl"

    async def body(s: ClientSession):
        return await s.call_tool("sleep", {"transcript_path": str(transcript), "final": True})

    slept = run_session(hash_vault.root, body)
    assert not slept.is_error, text_of(slept)
    assert slept.structured_content["skipped_records"] == {"future-record": 2}
    assert "skipped 2 transcript record(s)" in slept.structured_content["summary"]


def test_the_recall_tool_sees_a_noted_turn_before_any_sleep(hash_vault):
    async def body(s: ClientSession):
        await s.call_tool("note", {"role": "user", "text": "The gate code for the allotment is 4412."})
        return await s.call_tool("recall", {"query": "what is the gate code?"})

    found = run_session(hash_vault.root, body)
    assert not found.is_error and "Said recently, not yet slept" in text_of(found) and "4412" in text_of(found)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_loopback(seeded):
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "sheriff_vault", "mcp", "--vault", str(seeded.root),
                             "--http", f"127.0.0.1:{port}"], env=os.environ | ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def listening() -> bool:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "server exited"
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_for(listening, timeout=60, what="the HTTP server to listen")

        async def main():
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as s:
                    await s.initialize()
                    return await s.call_tool("recall", {"query": "deploy staging"})

        result = asyncio.run(main())
        assert not result.is_error and "make stage-up" in text_of(result)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_bad_http_address_is_a_message_not_a_traceback(hash_vault, run):
    out = run("mcp", "--vault", hash_vault.root, "--http", "127.0.0.1:notaport")
    assert out.returncode == 1 and "is not HOST:PORT" in out.stderr and "Traceback" not in out.stderr


def test_recall_sees_hand_edits_with_and_without_the_daemon(seeded, run):
    topic = seeded.root / "topics" / "staging-deploy.md"

    def edit(fact: str) -> None:
        text = topic.read_text()
        tmp = topic.with_name(".staging-deploy.md.swp")  # saved the way editors save: write, then rename
        tmp.write_text(text.replace("## Facts\n\n", f"## Facts\n\n- 2026-02-21 {fact}\n"))
        os.replace(tmp, topic)

    async def body(s: ClientSession):
        edit("The staging database listens on port 6543.")
        first = await s.call_tool("recall", {"query": "which port does the staging database listen on?"})
        started = run("watch", "--vault", seeded.root)
        assert started.returncode == 0, started.stderr
        try:
            wait_for(lambda: rpc.call(seeded, "status"), timeout=60, what="the daemon to answer")
            edit("The staging cache is redis-7.")

            async def found() -> str:
                for _ in range(100):
                    result = await s.call_tool("recall", {"query": "which redis does the staging cache use?"})
                    if "redis-7" in text_of(result):
                        return text_of(result)
                    await asyncio.sleep(0.3)
                return ""

            second = await found()
        finally:
            run("watch", "--stop", "--vault", seeded.root)
        return first, second

    first, second = run_session(seeded.root, body)
    assert "port 6543" in text_of(first)
    assert "redis-7" in second


def test_skills_run_over_mcp_takes_ctx_refs_and_checks_its_inputs(seeded):
    async def body(s: ClientSession):
        planned = await s.call_tool("skills_run", {"skill_id": "plan_and_execute", "ctx_refs": ["Staging deploy"],
                                                   "args": {"goal": "move staging to k8s", "execute": 0}})
        refused = await s.call_tool("skills_run", {"skill_id": "plan_and_execute", "args": {"execute": 1}})
        return planned, refused

    planned, refused = run_session(seeded.root, body)
    assert not planned.is_error, text_of(planned)
    assert planned.structured_content["context"] == ["Staging deploy"]
    assert planned.structured_content["next_step"] == "Step 1: move staging to k8s"
    assert refused.is_error and "'goal' is a required property" in text_of(refused)


def test_a_server_started_without_a_vault_answers_every_call_with_what_to_do(tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "sheriff_vault", "mcp"],
                                   env=ENV | {"HOME": os.environ["HOME"]}, cwd=str(tmp_path))

    async def main():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = [t.name for t in (await s.list_tools()).tools]
            calls = [await s.call_tool("recall", {"query": "the party"}), await s.call_tool("topic_list", {}),
                     await s.call_tool("note", {"role": "user", "text": "hello"})]
            resources = (await s.list_resources()).resources
            with pytest.raises(MCPError) as wake:
                await s.read_resource("vault://wake")
            return tools, calls, resources, str(wake.value)

    tools, calls, resources, wake = asyncio.run(main())
    assert "recall" in tools and [str(r.uri) for r in resources] == ["vault://wake"]
    for result in calls:
        assert result.is_error
        message = text_of(result)
        assert "started without a vault" in message and "--vault" in message and "SHERIFF_VAULT" in message
    assert "--vault" in wake


READ_ONLY = {"recall", "topic_get", "topic_list", "history", "diff", "time", "wake", "skills_search"}
DESTRUCTIVE = {"sleep", "topic_upsert", "topic_link", "note", "topic_fact"}


def test_every_tool_has_a_title_annotations_a_dedented_description_and_a_closed_schema(seeded):
    async def body(s: ClientSession):
        return (await s.list_tools()).tools

    tools = {t.name: t for t in run_session(seeded.root, body)}
    assert READ_ONLY | DESTRUCTIVE <= set(tools)
    for tool in tools.values():
        assert tool.title and tool.annotations and tool.annotations.title == tool.title, tool.name
        assert tool.input_schema["additionalProperties"] is False, tool.name
        assert "\n " not in tool.description and tool.description == tool.description.strip(), tool.name
    for name in READ_ONLY:
        assert tools[name].annotations.read_only_hint is True, name
    for name in DESTRUCTIVE:
        hints = tools[name].annotations
        assert hints.read_only_hint is False and hints.destructive_hint is True, name
    assert tools["recall"].title == "Recall memory"


def test_an_unknown_argument_is_refused_in_words_that_say_what_to_do(seeded):
    async def body(s: ClientSession):
        return (await s.call_tool("recall", {"query": "deploy", "topk": 3}),
                await s.call_tool("recall", {"query": 42}),
                await s.call_tool("topic_get", {}),
                await s.call_tool("no_such_tool", {}))

    unknown, wrong_type, missing, no_tool = run_session(seeded.root, body)
    assert unknown.is_error and "recall does not take 'topk'" in text_of(unknown)
    assert "it takes: query, since, until, budget, as_of, deep" in text_of(unknown)
    assert wrong_type.is_error and "query: 42 is not of type 'string'" in text_of(wrong_type)
    assert missing.is_error and "'ref' is a required property" in text_of(missing)
    assert no_tool.is_error and "there is no tool 'no_such_tool'; the tools are: recall" in text_of(no_tool)
    for result in (unknown, wrong_type, missing, no_tool):
        assert "pydantic" not in text_of(result) and "Error executing tool" not in text_of(result)


def test_topic_list_and_history_page_with_limit_and_cursor(hash_vault):
    for i in range(5):
        create_topic(hash_vault, f"Topic {i}", now=NOW.replace(hour=i), facts=[f"Fact number {i}."])

    async def body(s: ClientSession):
        pages, cursor = [], None
        while True:
            args = {"limit": 2} | ({"cursor": cursor} if cursor else {})
            page = (await s.call_tool("topic_list", args)).structured_content
            pages.append(page)
            cursor = page["next_cursor"]
            if cursor is None:
                break
        await s.call_tool("topic_upsert", {"topic_id": "topic-0", "facts": ["A second fact."]})
        first = (await s.call_tool("history", {"topic": "topic-0", "limit": 1})).structured_content
        second = (await s.call_tool("history", {"topic": "topic-0", "limit": 1,
                                                "cursor": first["next_cursor"]})).structured_content
        return pages, await s.call_tool("topic_list", {"cursor": "nonsense"}), first, second

    pages, bad, first, second = run_session(hash_vault.root, body)
    assert len(first["commits"]) == len(second["commits"]) == 1 and second["next_cursor"] is None
    assert first["commits"][0]["sha"] != second["commits"][0]["sha"]
    assert [[t["name"] for t in p["topics"]] for p in pages] == [["Topic 4", "Topic 3"], ["Topic 2", "Topic 1"],
                                                                 ["Topic 0"]]
    assert {p["total"] for p in pages} == {5}
    assert bad.is_error and "next_cursor" in text_of(bad)


def test_diff_since_a_date_takes_everything_since_that_date(hash_vault):
    create_topic(hash_vault, "Garden", now=NOW, facts=["The shed is green."])

    async def body(s: ClientSession):
        day = NOW.strftime("%Y-%m-%d")
        return (await s.call_tool("diff", {"since": day}),
                await s.call_tool("diff", {"since": day, "until": day}))

    since, window = run_session(hash_vault.root, body)
    assert not since.is_error, text_of(since)
    assert since.structured_content["window"]["end"] is None
    assert [t["name"] for t in since.structured_content["topics"]] == ["Garden"]
    assert window.structured_content["window"]["end"]


def test_topic_fact_supersedes_or_removes_a_fact_citing_who_asked_and_when(hash_vault):
    create_topic(hash_vault, "Billing", now=NOW, facts=["The invoice cutoff is the 25th.", "Invoices go out in EUR.",
                                                       "Invoices go out by email."])

    async def body(s: ClientSession):
        return (await s.call_tool("topic_fact", {"topic": "billing", "fact": "cutoff is the 25th",
                                                 "action": "supersede", "asked_by": "Ana",
                                                 "replacement": "The invoice cutoff is the 28th.",
                                                 "reason": "finance moved it"}),
                await s.call_tool("topic_fact", {"topic": "billing", "fact": "Invoices go out by email.",
                                                 "action": "remove"}),
                await s.call_tool("topic_fact", {"topic": "billing", "fact": "invoice", "action": "remove"}),
                await s.call_tool("topic_fact", {"topic": "billing", "fact": "the 25th", "action": "remove"}),
                await s.call_tool("recall", {"query": "when is the invoice cutoff?"}))

    superseded, removed, ambiguous, gone, recalled = run_session(hash_vault.root, body)
    assert not superseded.is_error, text_of(superseded)
    assert superseded.structured_content["asked_by"] == "Ana" and superseded.structured_content["at"]
    text = (hash_vault.root / "topics" / "billing.md").read_text()
    day = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    assert f"~~The invoice cutoff is the 25th.~~ (superseded {day} by Ana)" in text
    assert "The invoice cutoff is the 28th." in text and "by email" not in text
    assert removed.structured_content["asked_by"] == "an MCP client"
    log = git(hash_vault.root, "log", "-2", "--format=%B")
    assert "fact: supersede in Billing, asked by Ana" in log and "Reason: finance moved it" in log
    assert "fact: remove in Billing, asked by an MCP client" in log and "Removed: Invoices go out by email." in log
    assert ambiguous.is_error and "give more of the fact's text" in text_of(ambiguous)
    assert gone.is_error and "no current fact" in text_of(gone) and "topic_get" in text_of(gone)
    assert "28th" in text_of(recalled)
    topic = hash_vault.topics.get("billing")
    struck = [f for f in topic.facts if f.superseded]
    assert [(f.text, f.superseded_by) for f in struck] == [("The invoice cutoff is the 25th.", "Ana")]


def test_recall_over_mcp_filters_by_tag_and_topic_link_writes_an_obsidian_link(seeded):
    async def body(s: ClientSession):
        made = await s.call_tool("topic_upsert", {"name": "Production deploy", "tags": ["ops/prod"],
                                                  "facts": ["We deploy production with make prod-up from a tag."]})
        everything = await s.call_tool("recall", {"query": "how do we deploy?"})
        tagged = await s.call_tool("recall", {"query": "how do we deploy?", "tag": "ops"})
        linked = await s.call_tool("topic_link", {"src": "production deploy", "dst": "staging deploy"})
        return made, everything, tagged, linked

    made, everything, tagged, linked = run_session(seeded.root, body)
    assert not made.is_error and not tagged.is_error and not linked.is_error
    assert "make stage-up" in text_of(everything) and "make prod-up" in text_of(everything)
    assert "make prod-up" in text_of(tagged) and "make stage-up" not in text_of(tagged)
    text = (seeded.root / "topics/production-deploy.md").read_text()
    assert "tags:\n- ops/prod\n" in text
    assert text.endswith("## Related\n\n- [[staging-deploy|Staging deploy]]\n")
