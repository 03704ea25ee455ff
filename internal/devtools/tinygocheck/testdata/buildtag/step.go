package buildtag

func step(x int32) int32 { return x + 1 }
