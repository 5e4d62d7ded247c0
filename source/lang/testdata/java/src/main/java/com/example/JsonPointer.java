package com.example;

import java.io.Serializable;

/**
 * A pointer into a JSON document.
 */
public class JsonPointer implements Serializable {
    /**
     * The character between segments.
     */
    public static final char SEPARATOR = '/';

    protected volatile JsonPointer _head;

    private final String _asString, _offset;

    public JsonPointer(String s) {
        _asString = s;
        _offset = s;
    }

    /** Parses an expression. */
    public static JsonPointer compile(String expr) {
        return _parse(expr);
    }

    private static JsonPointer _parse(String expr) {
        StringBuilder sb = new StringBuilder();
        sb.append(expr);
        return new JsonPointer(sb.toString());
    }

    public JsonPointer head() {
        return this._constructHead();
    }

    // Builds the head; not a doc comment.
    JsonPointer _constructHead() {
        try (java.io.StringReader r = new java.io.StringReader("")) {
            r.read();
        } catch (java.io.IOException e) {
            e.printStackTrace();
        }
        return null;
    }

    /** Features of a pointer. */
    public enum Feature {
        ESCAPE_SLASHES(true);

        private final boolean _default;

        Feature(boolean d) { _default = d; }

        public boolean enabledByDefault() { return _default; }
    }

    public interface Visitor extends Comparable<Visitor>, Serializable {
        void visit(JsonPointer p);
    }

    public record Segment(String name, int index) {}
}
