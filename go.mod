module github.com/tflm-gen/tflm-gen

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/google/flatbuffers v25.12.19+incompatible
	golang.org/x/tools v0.52.0
)

require github.com/ulikunitz/xz v0.5.17
