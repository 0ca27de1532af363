# source me: unpacks the carried binary, points the project at the image's ptxas 13.0
mkdir -p /tmp/bin && xz -dc .dev/carry/ptxconform.xz > /tmp/bin/ptxconform && chmod +x /tmp/bin/ptxconform
export P=/tmp/bin/ptxconform PTXAS=/usr/local/cuda/bin/ptxas
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
