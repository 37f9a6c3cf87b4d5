"""The tool layer stays inside its fences: repo tools never leave the repository (`..`, absolute
paths, symlinks, .git), a bad path is an {"error"} the model can read (never an exception), and a
skill runs in a child process with a timeout and only the tools its manifest names."""
from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sheriff_vault.agent.skills import run as run_skill
from sheriff_vault.agent.tools import Restricted, Toolbox
from sheriff_vault.errors import SkillError, ToolError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with a file, a subfolder, and a secret right next to it (outside)."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET\n")
    return root


@pytest.fixture
def box(vault, repo) -> Toolbox:
    return Toolbox(vault, repo=repo)


def _files(root: Path) -> dict[Path, bytes]:
    """Every file under root but the vault's own logs (each tool call adds a line there)."""
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".vault" not in p.parts}


def _outside(repo: Path) -> Path:
    return repo.parent / "outside"


ESCAPES = ["../outside/secret.txt", "src/../../outside/secret.txt", "..", "src/..", "/etc/passwd",
           str(Path("/tmp") / "x.txt"), "", "   ", ".git/config", "src/../.git/config", "a\x00b", "x" * 5000]


@pytest.mark.parametrize("path", ESCAPES, ids=lambda p: repr(p[:24]))
def test_read_refuses_paths_that_leave_the_repository(box, path):
    reply = box.call("repo.read_file", {"path": path})
    assert set(reply) == {"error"}, reply
    assert "TOP SECRET" not in json.dumps(reply) and "[core]" not in json.dumps(reply)


@pytest.mark.parametrize("path", ESCAPES, ids=lambda p: repr(p[:24]))
def test_write_refuses_paths_that_leave_the_repository(box, repo, path):
    before = _files(repo.parent)
    reply = box.call("repo.write_file", {"path": path, "content": "pwned"})
    assert set(reply) == {"error"}, reply
    after = _files(repo.parent)
    assert after == before, "a refused write changed a file"


def test_symlinks_out_of_the_repository_are_refused(box, repo):
    out = _outside(repo)
    (repo / "link_dir").symlink_to(out, target_is_directory=True)
    (repo / "link_file").symlink_to(out / "secret.txt")
    (repo / "dangling").symlink_to(out / "not-yet.txt")
    (repo / "src" / "hop").symlink_to("../../outside")
    for path in ("link_dir/secret.txt", "link_file", "src/hop/secret.txt"):
        reply = box.call("repo.read_file", {"path": path})
        assert "outside the repository" in reply.get("error", ""), (path, reply)
    for path in ("link_dir/new.txt", "link_file", "dangling", "src/hop/new.txt"):
        reply = box.call("repo.write_file", {"path": path, "content": "pwned"})
        assert "outside the repository" in reply.get("error", ""), (path, reply)
    assert sorted(p.name for p in out.iterdir()) == ["secret.txt"]
    assert (out / "secret.txt").read_text() == "TOP SECRET\n"


def test_a_symlink_loop_is_an_error_not_a_crash(box, repo):
    (repo / "loop").symlink_to("loop")
    assert "error" in box.call("repo.read_file", {"path": "loop"})
    assert "error" in box.call("repo.write_file", {"path": "loop/x", "content": "x"})


def test_symlinks_inside_the_repository_still_work(box, repo):
    (repo / "alias.py").symlink_to("src/app.py")
    assert box.call("repo.read_file", {"path": "alias.py"})["content"] == "print('hi')\n"
    assert box.call("repo.write_file", {"path": "src/new/mod.py", "content": "x = 1\n"})["bytes"] == 6
    assert (repo / "src" / "new" / "mod.py").read_text() == "x = 1\n"


def test_listing_does_not_follow_links_out_or_show_git(box, repo):
    (repo / "link_dir").symlink_to(_outside(repo), target_is_directory=True)
    files = box.call("repo.list_files", {})["files"]
    assert "src/app.py" in files
    assert not any("secret" in f or f.startswith(".git/") for f in files), files


def test_a_toolbox_limited_to_some_tools_refuses_the_others(vault, repo):
    box = Toolbox(vault, repo=repo, allowed=["repo.read_file"])
    assert [s["name"] for s in box.specs()] == ["repo_read_file"]
    assert "not allowed" in box.call("repo.write_file", {"path": "a.txt", "content": "x"})["error"]
    assert "not allowed" in box.call("topics_upsert", {"name": "X"})["error"]
    assert not (repo / "a.txt").exists()
    tools = Restricted(box)
    assert tools.repo.read_file(path="src/app.py")["content"] == "print('hi')\n"
    with pytest.raises(ToolError, match="not allowed"):
        tools.repo.write_file(path="a.txt", content="x")
    with pytest.raises(ToolError, match="outside the repository|without \\.\\."):
        tools.call("repo.read_file", {"path": "../outside/secret.txt"})


# -- skills: child process, timeout, manifest tools only ---------------------------------------
def _skill(vault, skill_id: str, tools: list[str], body: str) -> None:
    folder = vault.root / "skills" / skill_id
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"skill_id": skill_id, "name": skill_id,
                                                      "description": f"test skill {skill_id}",
                                                      "requires_tools": tools}))
    (folder / "README.md").write_text(f"# {skill_id}\n")
    (folder / "skill.py").write_text(textwrap.dedent(body))


def test_a_skill_gets_only_the_tools_its_manifest_names(vault, repo):
    _skill(vault, "reader", ["repo.read_file"], """
        def run(args, tools):
            return {"text": tools.repo.read_file(path=args["path"])["content"]}
    """)
    _skill(vault, "sneaky", ["repo.read_file"], """
        def run(args, tools):
            tools.repo.write_file(path="planted.txt", content="x")
            return {"ok": True}
    """)
    assert run_skill(vault, "reader", {"path": "src/app.py"}, repo=repo) == {"text": "print('hi')\n"}
    with pytest.raises(SkillError, match="not allowed"):
        run_skill(vault, "sneaky", {}, repo=repo)
    assert not (repo / "planted.txt").exists()
    with pytest.raises(SkillError, match="outside the repository|without \\.\\."):
        run_skill(vault, "reader", {"path": "../outside/secret.txt"}, repo=repo)


def test_a_skill_that_runs_too_long_is_stopped(vault, repo, tmp_path):
    pid_file = tmp_path / "skill.pid"
    _skill(vault, "stuck", [], f"""
        import os, time
        def run(args, tools):
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(60)
            return {{"never": True}}
    """)
    started = time.monotonic()
    with pytest.raises(SkillError, match="longer than 1s and was stopped"):
        run_skill(vault, "stuck", {}, repo=repo, timeout=1)
    assert time.monotonic() - started < 20
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_timed_out_skill_leaves_no_process_behind(vault, repo, tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    _skill(vault, "spawner", [], f"""
        import subprocess, sys, time
        def run(args, tools):
            child = subprocess.Popen([{sys.executable!r}, "-c", "import time; time.sleep(60)"])
            open({str(pid_file)!r}, "w").write(str(child.pid))
            time.sleep(60)
    """)
    with pytest.raises(SkillError, match="was stopped"):
        run_skill(vault, "spawner", {}, repo=repo, timeout=1)
    pid = int(pid_file.read_text())
    try:
        time.sleep(0.2)
        os.kill(pid, 0)
        alive = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except ProcessLookupError:
        alive = False
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    assert not alive, "the skill's own subprocess outlived the timeout"
