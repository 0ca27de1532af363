#!/bin/bash
s=$(date +%s%N)
/usr/local/cuda/bin/ptxas "$@"; rc=$?
e=$(date +%s%N)
t=$(times | tail -1)
echo "$s $e $rc $t ${@: -1}" >> /tmp/ptxlog
exit $rc
