"""What counts as a secret: files never copied into a snapshot, variables never handed to a test.

The built-in patterns cover the usual credential stores and names; a project adds its
own in ``[tool.elenchus]`` (``secret-files``: file-name globs, ``secret-variables``:
variable-name globs). Added patterns can only hide more, never reveal anything.
The sandbox hides the real repository and home directory as well; these patterns
keep secrets out of the copies the tests do see.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from elenchus.errors import ElenchusError

# Matched against the file name (not the path): never read or copied.
SECRET_NAME_PATTERNS = (
    ".env", ".env.*", "*.env", ".envrc",
    "id_rsa", "id_rsa.*", "id_dsa", "id_dsa.*", "id_ecdsa", "id_ecdsa.*", "id_ed25519", "id_ed25519.*",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks",
    ".netrc", "_netrc", ".pypirc", ".npmrc", ".git-credentials",
    "credentials", "credentials.json", "credentials.*", "*.credentials",
    "*service-account*.json", "*service_account*.json", "*serviceaccount*.json",
    ".htpasswd", "secrets.json", "secrets.yaml", "secrets.yml", "secrets.toml", "*.tfvars",
)
# Directory names whose whole content is credential or keychain material.
SECRET_DIR_NAMES = frozenset({".ssh", ".gnupg", ".aws", ".docker", ".kube"})

_SECRET_FRAGMENTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "WEBHOOK", "JWT")
_SECRET_SEGMENTS = frozenset({"KEY", "KEYS", "PAT", "AUTH", "COOKIE", "COOKIES", "PRIVATE", "SIGNATURE",
                              "PASS", "PWD", "DSN"})
_SECRET_PREFIXES = ("AWS_", "AZURE_", "GCP_", "VAULT_", "GNUPG", "GPG_", "SSH_")
_SECRET_NAMES = frozenset({"NETRC", "KUBECONFIG", "DOCKER_CONFIG", "PGPASSFILE", "GIT_ASKPASS", "SSH_ASKPASS",
                           "CI_JOB_JWT", "ACTIONS_ID_TOKEN_REQUEST_URL", "SENTRY_DSN"})
# scheme://user:password@host  -- a credential inside a URL
_URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:[^/\s@]+@")

#: Carries a project's own patterns to worker processes; never handed to the tests.
ENV = "ELENCHUS_SECRETS"


def _extra() -> tuple[tuple[str, ...], tuple[str, ...]]:
    data = json.loads(os.environ.get(ENV) or "{}")
    return tuple(data.get("files", ())), tuple(data.get("variables", ()))


def is_secret_file(path: str) -> bool:
    """A file that is never copied into a snapshot (matched on its name, or a credential directory)."""
    parts = PurePosixPath(path).parts
    if any(part in SECRET_DIR_NAMES for part in parts[:-1]):
        return True
    name = parts[-1]
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_NAME_PATTERNS + _extra()[0])


def is_secret_variable(name: str, value: str = "") -> bool:
    """True when an environment variable looks like it carries or points at a credential."""
    upper = name.upper()
    if upper in _SECRET_NAMES or upper.startswith(_SECRET_PREFIXES):
        return True
    if any(fragment in upper for fragment in _SECRET_FRAGMENTS):
        return True
    if any(fnmatch.fnmatchcase(upper, pattern.upper()) for pattern in _extra()[1]):
        return True
    segments = [s for s in upper.split("_") if s]
    key_like = any(s in _SECRET_SEGMENTS or (s.endswith("KEY") and len(s) > 3) for s in segments)
    path_like = upper.endswith("PATH")  # PATH, PYTHONPATH, ... are kept even next to "KEY"
    if key_like and not path_like:
        return True
    if _URL_WITH_PASSWORD.search(value) or "-----BEGIN" in value:
        return True
    return False


def scrub_environment(env: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``env`` without secret-looking variables (names or values) and Elenchus's own controls."""
    return {name: value for name, value in env.items()
            if not is_secret_variable(name, value) and name not in _CONTROLS}


_CONTROLS = frozenset({ENV, "ELENCHUS_SANDBOX"})


def configure(repo_root: Path | str) -> None:
    """Add the project's ``secret-files`` and ``secret-variables`` (pyproject.toml in the working tree)."""
    path = Path(repo_root) / "pyproject.toml"
    if not path.is_file():
        return
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("elenchus", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return  # an unreadable file is reported where the settings are read
    added, bad = {}, []
    for key, field in (("secret-files", "files"), ("secret-variables", "variables")):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            bad.append(f"{key} must be a list of glob patterns (strings), got {value!r}")
        added[field] = value
    if bad:  # both at once
        raise ElenchusError(f"[tool.elenchus] {'; '.join(bad)}; fix pyproject.toml")
    os.environ[ENV] = json.dumps(added)
