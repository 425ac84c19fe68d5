module proxybench/syscall-tax

go 1.26.0
