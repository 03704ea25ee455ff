//go:build tinygo

package buildtag // want `file excluded by build constraints`

func stepTinyGo(x int32) int32 { return x + 2 }
