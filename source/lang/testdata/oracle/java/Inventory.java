package shop;

import java.util.ArrayList;
import java.util.List;

/** Keeps items. */
public class Inventory implements Comparable<Inventory> {
    public static final int LIMIT = 10;
    private final List<String> items = new ArrayList<>();
    int count, spare;

    public Inventory() {}

    Inventory(int count) { this.count = count; }

    public void add(String item) { items.add(item); }

    @Override
    public int compareTo(Inventory o) { return Integer.compare(count, o.count); }

    /** A kind. */
    public enum Kind {
        BOOK, TOOL;
        public boolean heavy() { return this == TOOL; }
    }

    interface Listener {
        void changed(Inventory i);
        default void reset() {}
    }

    record Entry(String name, int qty) {
        Entry {
            if (qty < 0) throw new IllegalArgumentException();
        }
        static Entry of(String n) { return new Entry(n, 1); }
    }

    static class Audit {
        private int seen;
        void see() { seen++; }
    }
}
