module example.com/courier

go 1.22
