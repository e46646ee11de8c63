"""Stand-in for verl.protocol.DataProto (TensorDict batch, numpy object columns): the slicing and indexing the
reward managers use, over stub tensors and lists."""


class DataProtoItem:
    def __init__(self, batch, non_tensor_batch, meta_info=None):
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch
        self.meta_info = meta_info or {}


class DataProto:
    def __init__(self, batch, non_tensor_batch, meta_info=None):
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch
        self.meta_info = meta_info or {}

    def __len__(self):
        return len(next(iter(self.batch.values())))

    def __getitem__(self, key):
        if isinstance(key, slice):
            return DataProto({k: t[key] for k, t in self.batch.items()}, {k: v[key] for k, v in self.non_tensor_batch.items()}, self.meta_info)
        return DataProtoItem({k: t[key] for k, t in self.batch.items()}, {k: v[key] for k, v in self.non_tensor_batch.items()}, self.meta_info)
