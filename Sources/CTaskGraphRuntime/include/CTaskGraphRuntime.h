#ifndef C_TASKGRAPH_RUNTIME_H
#define C_TASKGRAPH_RUNTIME_H

/// The Swift runtime's "retain unless its deinit has started": returns `object` retained,
/// or NULL. What loading a `weak` reference does, without giving the object a side table.
/// Declared here because Swift reserves the runtime's names (`@_silgen_name` warns), and
/// linked, not looked up, so it works with a static Swift standard library too.
/// `object` must be a native Swift object whose memory is still allocated.
void *_Nullable swift_tryRetain(void *_Nonnull object);

#endif
