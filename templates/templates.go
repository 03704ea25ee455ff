// Package templates holds the text templates for tflm-gen's non-code output:
// the layout report written beside every generated package.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Layout renders layout.txt; its data is gen's layout report.
var Layout = template.Must(template.ParseFS(files, "layout.txt.tmpl"))
