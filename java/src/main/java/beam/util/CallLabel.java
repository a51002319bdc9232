package beam.util;

/**
 * The {@code label} of a call header: the call's first argument when it is a short printable
 * string (vLLM's {@code execute_method("init_device", ...)}), which the caller copies into the
 * header so that task lists can show it without the daemon unpickling the arguments.
 */
public final class CallLabel {
    public static final int MAX_CHARS = 64;

    private CallLabel() {
    }

    /** At most {@link #MAX_CHARS} characters, each printable ASCII (space to tilde). */
    public static boolean isValid(String label) {
        if (label == null || label.isEmpty() || label.length() > MAX_CHARS) return false;
        for (int i = 0; i < label.length(); i++) {
            char c = label.charAt(i);
            if (c < 0x20 || c > 0x7e) return false;
        }
        return true;
    }
}
