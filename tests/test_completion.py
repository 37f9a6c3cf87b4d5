"""`vault completion bash|zsh|fish`: click's completion script, and a real bash completing with it."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o nosort -F _vault_completion vault"),
                                          ("zsh", "#compdef vault"), ("fish", "complete --no-files --command vault")])
def test_each_shell_gets_clicks_script(invoke, shell, marker):
    out = invoke("completion", shell)
    assert out.exit_code == 0 and marker in out.stdout and f"_VAULT_COMPLETE={shell}_complete" in out.stdout


def test_an_unknown_shell_is_refused(invoke):
    out = invoke("completion", "tcsh")
    assert out.exit_code == 2 and "tcsh" in out.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_commands_and_options_with_the_script(invoke, tmp_path: Path):
    script = tmp_path / "vault-completion.bash"
    script.write_text(invoke("completion", "bash").stdout)
    bin_dir = tmp_path / "bin"  # `vault` on PATH, as an installed one would be
    bin_dir.mkdir()
    (bin_dir / "vault").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m sheriff_vault "$@"\n')
    (bin_dir / "vault").chmod(0o755)

    def complete(*words: str) -> list[str]:
        line = " ".join(words)
        code = (f'source "{script}"; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; '
                '_vault_completion vault; printf "%s\\n" "${COMPREPLY[@]}"')
        out = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=60,
                             env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path),
                                  "PYTHONPATH": ":".join(sys.path)})
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    assert complete("vault", "sle") == ["sleep", "sleeps"]
    assert "--final" in complete("vault", "sleep", "--f")
