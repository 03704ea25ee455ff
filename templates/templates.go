// Package templates holds the text templates for tflm-gen's non-code output:
// the layout report written beside every generated package and the
// benchmark document.
package templates

import (
	"embed"
	"text/template"
)

// Files holds every template.
//
//go:embed *.tmpl
var Files embed.FS

// Layout renders layout.txt; its data is gen's layout report.
var Layout = template.Must(template.ParseFS(Files, "layout.txt.tmpl"))
