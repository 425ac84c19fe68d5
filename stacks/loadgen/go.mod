module proxybench/loadgen

go 1.26.0
