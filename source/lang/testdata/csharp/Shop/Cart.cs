using System;
using Shop.Util;

namespace Shop.Core
{
    /// <summary>A cart of items.</summary>
    public class Cart : Base, IStore
    {
        public const int Max = 3;
        private int count, total;

        /// <summary>The cart's name.</summary>
        public string Name { get; set; }

        public Cart() { Reset(); }

        public void Add(int n)
        {
            this.Reset();
            Helper.Run(n);
            count.ToString();
        }

        void Reset() { }

        public enum Mode { Fast, Slow }
    }

    public interface IStore
    {
        void Add(int n);
    }

    public struct Point
    {
        public int X;
    }

    public record Item(string Name);

    public delegate void Changed(Cart c);

    public class CartTests
    {
        [Fact]
        public void Adds() { new Cart().Add(1); var c = new Cart(); c.Reset(); }
    }
}
