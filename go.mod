module github.com/xlaoom/xlaoomprocessor

go 1.25.0
