#!/usr/bin/env bash
# Makes .ci-venv (at the repository root) with opentelemetry-proto, unless it is there already;
# installs Debian's python3-venv first when the venv module is missing (root or sudo).
cd "$(dirname "$0")/../.."
.ci-venv/bin/python -c 'import opentelemetry.proto' 2>/dev/null && exit 0
rm -rf .ci-venv
if ! python3 -m venv .ci-venv 2>/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
    rm -rf .ci-venv
    python3 -m venv .ci-venv || { echo "otlp: cannot make a venv"; exit 1; }
fi
.ci-venv/bin/pip install -q opentelemetry-proto || { echo "otlp: cannot install opentelemetry-proto"; exit 1; }
