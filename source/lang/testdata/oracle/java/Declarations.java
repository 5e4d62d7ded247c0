import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Prints the declarations of Java source files as the JDK's own parser reads them, one per
 * line: kind, then the name qualified by the enclosing types (Outer.Inner.member). A test
 * oracle for DocForge's Java adapter; it reads the syntax only, as DocForge does.
 */
public class Declarations {
    public static void main(String[] args) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        var files = javac.getStandardFileManager(null, null, null).getJavaFileObjects(args);
        JavacTask task = (JavacTask) javac.getTask(null, null, null, List.of("-proc:none"), null, files);
        for (CompilationUnitTree unit : task.parse()) {
            System.out.println("file " + unit.getSourceFile().getName());
            new TreeScanner<Void, String>() {
                @Override
                public Void visitClass(ClassTree c, String outer) {
                    String name = outer.isEmpty() ? c.getSimpleName().toString() : outer + "." + c.getSimpleName();
                    String kind = switch (c.getKind()) {
                        case INTERFACE, ANNOTATION_TYPE -> "interface";
                        case ENUM -> "enum";
                        case RECORD -> "record";
                        default -> "class";
                    };
                    System.out.println(kind + " " + name);
                    for (Tree member : c.getMembers()) {
                        if (member instanceof VariableTree v) {
                            boolean constant = c.getKind() == Tree.Kind.INTERFACE
                                || v.getModifiers().getFlags().containsAll(List.of(Modifier.STATIC, Modifier.FINAL))
                                || c.getKind() == Tree.Kind.ENUM && v.getType() == null;
                            System.out.println((constant ? "const " : "field ") + name + "." + v.getName());
                        } else if (member instanceof MethodTree m) {
                            boolean ctor = m.getName().contentEquals("<init>");
                            System.out.println((ctor ? "constructor " : "method ") + name + "." + (ctor ? c.getSimpleName() : m.getName()));
                        } else {
                            scan(member, name);
                        }
                    }
                    return null;
                }
            }.scan(unit, "");
        }
    }
}
