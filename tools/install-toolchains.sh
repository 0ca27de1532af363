#!/usr/bin/env bash
# Installs the code generators and disassembler that attribution and compiler-differential runs
# use, from PyPI, into the toolchain directory ($PTXCONFORM_TOOLCHAINS, else
# $XDG_CACHE_HOME/ptxconform/toolchains, else ~/.cache/ptxconform/toolchains), one folder per
# package and version: nvcc-13.5.37/nvidia/cu13/bin/ptxas, nvdisasm-13.5.37/nvidia/cu13/bin/nvdisasm.
# Usage: tools/install-toolchains.sh [NVCC_VERSION ...]   (default: 13.0.88 13.5.37)
# The pinned 13.0.88 is the driver's own release (driver 580 = CUDA 13.0); 13.5.37 the newest.
# GPU machines reach no registry: install here and copy the folder (or the binaries) over.
set -euo pipefail
DIR=${PTXCONFORM_TOOLCHAINS:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxconform/toolchains}
PY=${PYTHON:-python3}
NVDISASM=${NVDISASM_VERSION:-13.5.37}
versions=("$@")
[[ ${#versions[@]} -gt 0 ]] || versions=(13.0.88 13.5.37)
mkdir -p "$DIR"
install() { # package version folder
    if [[ ! -d "$DIR/$3" ]]; then
        "$PY" -m pip install --quiet --disable-pip-version-check --no-deps --target "$DIR/$3.tmp" "$1==$2"
        mv "$DIR/$3.tmp" "$DIR/$3"
    fi
}
for v in "${versions[@]}"; do
    install nvidia-cuda-nvcc "$v" "nvcc-$v"
    "$DIR/nvcc-$v/nvidia/cu13/bin/ptxas" --version | grep release
done
install nvidia-cuda-nvdisasm "$NVDISASM" "nvdisasm-$NVDISASM"
echo "toolchains in $DIR"
