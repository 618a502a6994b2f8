module pahtum-go-starter

go 1.19
