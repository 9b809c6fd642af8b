// The one line that records this module: every `NotificationCenter` below, `.default`, property
// types and parameters, is the recording center (docs/RECORDING.md). Remove it and the app is
// what it was.
import NotifyBus

typealias NotificationCenter = RecordingNotificationCenter
