// elf_function_locator: where a function of a stripped x86-64 shared library starts, so that
// gdb can put a breakpoint on it. rules_proof.sh uses it for MPICH 4.0.2, whose Debian
// libmpich.so.12 exports no MPIR_* symbols (nm -D) and has no debug package on this machine.
//
// MPICH passes __func__ to its error macros (MPIR_ERR_*), so the code of MPIR_Foo loads the
// address of the string "MPIR_Foo" with a RIP-relative lea. The locator
//   1. finds "NAME\0" in .rodata,
//   2. finds every lea in .text that addresses it,
//   3. maps each to the function containing it through the unwind table (.eh_frame_hdr, one
//      entry per function) and requires that they all lie in one function,
//   4. requires at least one direct call (or tail jump) in .text to that function's start,
//      which shows it is an entry point that code dispatches to.
// It prints the function's start as a link-time address; gdb adds the load base, found from
// an exported symbol whose link-time address the locator also prints.
//
//   elf_function_locator LIBRARY [--symbol NAME]... [--function NAME]...
// prints
//   symbol NAME 0xADDRESS
//   function NAME 0xADDRESS size 0xSIZE references R calls C
// and exits 1 with a message when a name cannot be located unambiguously.
#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Image {
 public:
  explicit Image(const std::string& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Failure(fmt::format("cannot read {}", path));
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    const auto header = read<Elf64_Ehdr>(0);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
        header.e_machine != EM_X86_64)
      throw Failure(fmt::format("{} is not a little-endian x86-64 ELF64 file", path));
    for (std::size_t i = 0; i < header.e_shnum; ++i)
      sections_.push_back(read<Elf64_Shdr>(header.e_shoff + i * header.e_shentsize));
    if (header.e_shstrndx >= sections_.size()) throw Failure("no section name table");
    const Elf64_Shdr& names = sections_[header.e_shstrndx];
    for (const Elf64_Shdr& s : sections_)
      by_name_[std::string(c_string(names.sh_offset + s.sh_name))] = &s;
  }

  const Elf64_Shdr& section(const std::string& name) const {
    const auto it = by_name_.find(name);
    if (it == by_name_.end()) throw Failure(fmt::format("{} has no {} section", path_, name));
    return *it->second;
  }

  std::string_view contents(const Elf64_Shdr& s) const {
    if (s.sh_offset + s.sh_size > bytes_.size()) throw Failure("section beyond the file end");
    return {bytes_.data() + s.sh_offset, s.sh_size};
  }

  template <typename T>
  T read(std::uint64_t offset) const {
    if (offset + sizeof(T) > bytes_.size()) throw Failure("read beyond the file end");
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  /// File offset of a link-time address inside section s.
  std::uint64_t offset_of(const Elf64_Shdr& s, std::uint64_t address) const {
    if (address < s.sh_addr || address >= s.sh_addr + s.sh_size)
      throw Failure(fmt::format("address 0x{:x} is outside its section", address));
    return s.sh_offset + (address - s.sh_addr);
  }

  std::string_view c_string(std::uint64_t offset) const {
    if (offset >= bytes_.size()) throw Failure("string beyond the file end");
    return {bytes_.data() + offset};
  }

 private:
  std::string path_;
  std::vector<char> bytes_;
  std::vector<Elf64_Shdr> sections_;
  std::map<std::string, const Elf64_Shdr*> by_name_;
};

std::optional<std::uint64_t> dynamic_symbol(const Image& image, std::string_view name) {
  const Elf64_Shdr& symbols = image.section(".dynsym");
  const Elf64_Shdr& strings = image.section(".dynstr");
  for (std::uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols.sh_size; at += sizeof(Elf64_Sym)) {
    const auto sym = image.read<Elf64_Sym>(symbols.sh_offset + at);
    if (sym.st_value != 0 && image.c_string(strings.sh_offset + sym.st_name) == name)
      return sym.st_value;
  }
  return std::nullopt;
}

struct Function {
  std::uint64_t start, size;
};

/// Functions by start address, from .eh_frame_hdr's search table.
class UnwindTable {
 public:
  explicit UnwindTable(const Image& image) : image_(image), frames_(image.section(".eh_frame")) {
    const Elf64_Shdr& header = image.section(".eh_frame_hdr");
    const std::string_view h = image.contents(header);
    // version 1; eh_frame_ptr pcrel|sdata4, fde_count udata4, table datarel|sdata4
    if (h.size() < 12 || h[0] != 1 || static_cast<unsigned char>(h[1]) != 0x1b || h[2] != 0x03 ||
        static_cast<unsigned char>(h[3]) != 0x3b)
      throw Failure("unsupported .eh_frame_hdr encoding");
    const auto count = image.read<std::uint32_t>(header.sh_offset + 8);
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto location = image.read<std::int32_t>(header.sh_offset + 12 + 8 * i);
      const auto fde = image.read<std::int32_t>(header.sh_offset + 16 + 8 * i);
      entries_.push_back({header.sh_addr + static_cast<std::uint64_t>(std::int64_t{location}),
                          header.sh_addr + static_cast<std::uint64_t>(std::int64_t{fde})});
    }
  }

  /// The function whose code holds `address`, if the unwind table describes one.
  std::optional<Function> containing(std::uint64_t address) const {
    const auto it =
        std::upper_bound(entries_.begin(), entries_.end(), address,
                         [](std::uint64_t a, const Entry& e) { return a < e.location; });
    if (it == entries_.begin()) return std::nullopt;
    const Entry& e = *std::prev(it);
    const std::uint64_t fde = image_.offset_of(frames_, e.fde);
    if (image_.read<std::uint32_t>(fde) == 0xffffffffu) throw Failure("64-bit FDEs unsupported");
    // pc_begin (pcrel sdata4) must agree with the search table; pc_range (udata4) follows.
    const auto begin =
        e.fde + 8 + static_cast<std::uint64_t>(std::int64_t{image_.read<std::int32_t>(fde + 8)});
    if (begin != e.location)
      throw Failure(fmt::format("FDE at 0x{:x} does not use pcrel sdata4 pointers", e.fde));
    const Function f{begin, image_.read<std::uint32_t>(fde + 12)};
    if (address >= f.start + f.size) return std::nullopt;
    return f;
  }

 private:
  struct Entry {
    std::uint64_t location, fde;
  };
  const Image& image_;
  const Elf64_Shdr& frames_;
  std::vector<Entry> entries_;
};

std::string locate(const Image& image, const UnwindTable& unwind, const std::string& name) {
  const Elf64_Shdr& rodata = image.section(".rodata");
  const Elf64_Shdr& text = image.section(".text");
  const std::string_view constants = image.contents(rodata);
  const std::string_view code = image.contents(text);

  std::set<std::uint64_t> strings;
  const std::string needle = name + '\0';
  for (std::size_t at = constants.find(needle); at != std::string_view::npos;
       at = constants.find(needle, at + 1))
    strings.insert(rodata.sh_addr + at);
  if (strings.empty()) throw Failure(fmt::format("no string \"{}\" in .rodata", name));

  std::vector<std::uint64_t> references;
  for (std::size_t i = 0; i + 7 <= code.size(); ++i) {
    const auto rex = static_cast<unsigned char>(code[i]);
    const auto modrm = static_cast<unsigned char>(code[i + 2]);
    if ((rex != 0x48 && rex != 0x4c) || static_cast<unsigned char>(code[i + 1]) != 0x8d ||
        (modrm & 0xc7) != 0x05)
      continue;  // lea reg, [rip + disp32]
    std::int32_t displacement;
    std::memcpy(&displacement, code.data() + i + 3, 4);
    const std::uint64_t at = text.sh_addr + i;
    if (strings.contains(at + 7 + static_cast<std::uint64_t>(std::int64_t{displacement})))
      references.push_back(at);
  }
  if (references.empty()) throw Failure(fmt::format("no code refers to \"{}\"", name));

  std::set<std::uint64_t> starts;
  Function function{0, 0};
  for (const std::uint64_t at : references) {
    const auto f = unwind.containing(at);
    if (!f)
      throw Failure(fmt::format("the reference to \"{}\" at 0x{:x} is in no function", name, at));
    starts.insert(f->start);
    function = *f;
  }
  if (starts.size() != 1) {
    std::string list;
    for (const std::uint64_t s : starts) list += fmt::format(" 0x{:x}", s);
    throw Failure(
        fmt::format("\"{}\" is referred to from {} functions ({}); cannot tell which "
                    "one it names",
                    name, starts.size(), list));
  }

  std::size_t calls = 0;
  for (std::size_t i = 0; i + 5 <= code.size(); ++i) {
    const auto opcode = static_cast<unsigned char>(code[i]);
    if (opcode != 0xe8 && opcode != 0xe9) continue;  // call / jmp rel32
    std::int32_t displacement;
    std::memcpy(&displacement, code.data() + i + 1, 4);
    if (text.sh_addr + i + 5 + static_cast<std::uint64_t>(std::int64_t{displacement}) ==
        function.start)
      ++calls;
  }
  if (calls == 0)
    throw Failure(
        fmt::format("no direct call to 0x{:x}, the function that refers to \"{}\"; it "
                    "may not be an entry point",
                    function.start, name));
  return fmt::format("function {} 0x{:x} size 0x{:x} references {} calls {}", name, function.start,
                     function.size, references.size(), calls);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2)
      throw Failure("usage: elf_function_locator LIBRARY [--symbol NAME]... [--function NAME]...");
    const Image image(argv[1]);
    const UnwindTable unwind(image);
    std::vector<std::string> lines;
    for (int i = 2; i < argc; i += 2) {
      const std::string_view option = argv[i];
      if (i + 1 >= argc) throw Failure(fmt::format("{} needs a name", option));
      const std::string name = argv[i + 1];
      if (option == "--symbol") {
        const auto address = dynamic_symbol(image, name);
        if (!address) throw Failure(fmt::format("{} exports no symbol {}", argv[1], name));
        lines.push_back(fmt::format("symbol {} 0x{:x}", name, *address));
      } else if (option == "--function") {
        lines.push_back(locate(image, unwind, name));
      } else {
        throw Failure(fmt::format("unknown option '{}'", option));
      }
    }
    for (const std::string& line : lines) fmt::print("{}\n", line);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "elf_function_locator: {}\n", e.what());
    return 1;
  }
}
