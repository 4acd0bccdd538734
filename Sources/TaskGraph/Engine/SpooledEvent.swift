/// What a program's thread puts in the spool of a server or an event relay: an event packed
/// in one cache line, or what the relay's `note` returned for the node that starts executing
/// in the next item (the server has no notes).
///
/// An enum, not a bare `PackedItem`, on purpose: with the struct as the spool's element, the
/// compiler built each item on the stack and copied it into the chunk with overlapping
/// 16-byte loads, which the stores just made cannot forward (a stall on every event). The
/// server's sink took 13 ns a W1 task more than the recorder's, whose element is an enum;
/// with an enum the fields are written straight into the chunk's slot.
enum SpooledEvent {
    case item(PackedItem)
    case note(AnyObject)
}
