import CNcurses
import TaskViewCore
import TaskViewIO

/// Turns curses key codes into `Key`s.
enum KeyDecoder {
    static func special(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BACKSPACE: .backspace
        case KEY_RESIZE: .resize
        default: nil
        }
    }

    static func character(_ value: UInt32) -> Key? {
        switch value {
        case 3: return .ctrlC
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        default:
            guard value >= 0x20, let scalar = Unicode.Scalar(value) else { return nil }
            return .char(Character(scalar))
        }
    }
}
