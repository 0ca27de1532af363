mkdir -p /tmp/pk && tar xJf .dev/exp/kern.tar.xz -C /tmp/pk && nproc && /usr/local/cuda/bin/ptxas --version | tail -2
python3 /tmp/pk/run.py /usr/local/cuda/bin/ptxas 16
