// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import "testing"

func TestInstalledPackage(t *testing.T) {
	for path, want := range map[string]string{
		"/opt/venv/lib/python3.12/site-packages/cupy/_creation/basic.py":        "cupy",
		"/usr/local/lib/python3.8/dist-packages/chainer/training/trainer.py":    "chainer",
		"/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py":     "torch",
		"/usr/local/lib/python3.11/site-packages/torch_xla/core/xla_model.py":   "torch_xla",
		"/usr/local/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py": "jax",
		"cupy/cuda/memory.pyx":                                                     "cupy",
		"cupy_backends/cuda/api/runtime.pyx":                                       "cupy_backends",
		"/home/user/redis/train.py":                                                "", // the user's own directory
		"train.py":                                                                 "",
		"/home/user/venv/lib/python3.12/site-packages":                             "",
		"/root/.cache/bazel/external/xla/xla/python/xla_client.py":                 "",
		"/usr/local/lib/python3.8/dist-packages/six.py":                            "six.py",
		"/opt/venv/lib/python3.12/site-packages/paddle/base/dygraph/base.py":       "paddle",
		"/opt/venv/lib/python3.12/site-packages/onnxruntime/capi/_pybind_state.py": "onnxruntime",
	} {
		if got := installedPackage(path); got != want {
			t.Errorf("installedPackage(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestRaisedIn: the innermost frame of the traceback an undecided exception
// ends names a foreign program; never XLA's, never the user's directory.
func TestRaisedIn(t *testing.T) {
	for _, c := range []struct {
		name, tb string
		want     Owner
		program  string
	}{
		{"CuPy's Cython frame innermost",
			`Traceback (most recent call last): File "/opt/venv/lib/python3.12/site-packages/cupy/_creation/basic.py", line 31, in empty return cupy.ndarray(shape, dtype, order=order) File "cupy/cuda/memory.pyx", line 1518, in cupy.cuda.memory.SingleDeviceMemoryPool._try_malloc `,
			Foreign, "cupy"},
		{"PyTorch innermost, the user's frame outermost",
			`Traceback (most recent call last): File "train.py", line 88, in <module> loss = model(x).sum() File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/linear.py", line 103, in forward return F.linear(input, self.weight, self.bias) `,
			Foreign, "pytorch"},
		{"the library outermost, the user's frame innermost",
			`Traceback (most recent call last): File "/opt/conda/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 521, in __next__ data = self._next_data() File "train.py", line 30, in collate return np.stack(batch) `,
			Unknown, ""},
		{"JAX innermost: frames never make XLA's",
			`Traceback (most recent call last): File "train.py", line 12, in <module> y = f(x) File "/usr/local/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 1257, in compile executable = UnloadedMeshExecutable.from_hlo( `,
			Unknown, ""},
		{"a directory named as a program in the user's path",
			`Traceback (most recent call last): File "/home/user/redis/train.py", line 12, in <module> y = f(x) `,
			Unknown, ""},
		{"no frame", `Traceback (most recent call last): `, Unknown, ""},
		{"a frame cut short", `Traceback (most recent call last): File "/opt/venv/lib/python3.12/site-packages/cupy/_creat`, Unknown, ""},
	} {
		s := Speaker{Form: Exception, Class: "MemoryError"}
		s.raisedIn(c.tb)
		if s.Owner != c.want || s.Program != c.program {
			t.Errorf("%s: %+v, want %v %q", c.name, s, c.want, c.program)
		}
	}
}
