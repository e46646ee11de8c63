"""Stand-in for the few torch calls verl's reward managers make (stub tensors of nested lists): verl's code runs
unchanged where torch is not installed. Used only by the verl reward-loop test, in its own process."""

float32 = "float32"
int64 = "int64"


def _shape(data):
    shape = []
    while isinstance(data, list):
        shape.append(len(data))
        data = data[0] if data else None
    return tuple(shape)


def _plain(value):
    return value.data if isinstance(value, Tensor) else value


class Tensor:
    device = "cpu"

    def __init__(self, data, dtype=int64):
        self.data = data
        self.dtype = dtype

    @property
    def shape(self):
        return _shape(self.data)

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def __len__(self):
        return len(self.data)

    def __index__(self):
        return int(self.data)

    __int__ = __index__

    def __float__(self):
        return float(self.data)

    def __sub__(self, other):
        other = _plain(other)
        if isinstance(self.data, list):
            return Tensor([x - other for x in self.data], self.dtype)
        return Tensor(self.data - other, self.dtype)

    def __getitem__(self, key):
        if isinstance(key, tuple):
            rows, cols = key
            picked = self[rows]
            if isinstance(rows, int):
                return picked[cols]
            return Tensor([Tensor(row, self.dtype)[cols].data for row in picked.data], self.dtype)
        if isinstance(key, slice):
            return Tensor(self.data[slice(*(None if b is None else int(b) for b in (key.start, key.stop, key.step)))], self.dtype)
        return Tensor(self.data[int(key)], self.dtype)

    def __setitem__(self, key, value):
        rows, cols = key
        value = _plain(value)
        if isinstance(rows, Tensor):  # advanced indexing: rows[i], cols[i] <- value[i]
            for i, (r, c) in enumerate(zip(rows.data, cols.data)):
                self.data[r][c] = value[i] if isinstance(value, list) else value
        else:
            self.data[int(rows)][int(cols)] = value

    def sum(self, dim=None):
        if dim is None:
            flat = self.data if not self.data or not isinstance(self.data[0], list) else [x for row in self.data for x in row]
            return Tensor(sum(flat), self.dtype)
        if dim == 1:
            return Tensor([sum(row) for row in self.data], self.dtype)
        raise NotImplementedError(f"sum(dim={dim})")

    def new_tensor(self, values):
        return Tensor(list(values), self.dtype)

    def tolist(self):
        return self.data


def tensor(data, dtype=int64):
    return Tensor(data, dtype)


def zeros_like(t, dtype=None):
    def zeros(data):
        return [zeros(x) for x in data] if isinstance(data, list) else 0.0 if dtype == float32 else 0

    return Tensor(zeros(t.data), dtype or t.dtype)


def arange(n, device=None):
    return Tensor(list(range(n)))
