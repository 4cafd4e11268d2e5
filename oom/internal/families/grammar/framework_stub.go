package grammar

const (
	FrameworkJAX        = "jax"
	FrameworkTensorFlow = "tensorflow"
	FrameworkPyTorchXLA = "pytorch_xla"
)
